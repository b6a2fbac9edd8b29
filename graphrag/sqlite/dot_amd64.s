#include "textflag.h"

// DOT32 adds the products of the 32 int8 values at a and at b, in pairs, to the 32-bit sums in Y0 (the
// first 16) and Y5 (the second 16); it uses Y1-Y4.
#define DOT32(a, b) \
	VPMOVSXBW (a), Y1 \
	VPMOVSXBW (b), Y2 \
	VPMADDWD  Y2, Y1, Y1 \
	VPADDD    Y1, Y0, Y0 \
	VPMOVSXBW 16(a), Y3 \
	VPMOVSXBW 16(b), Y4 \
	VPMADDWD  Y4, Y3, Y3 \
	VPADDD    Y3, Y5, Y5

// SUMY0Y5 is the sum of the sixteen 32-bit sums of Y0 and Y5, into AX; it uses X1.
#define SUMY0Y5 \
	VPADDD       Y5, Y0, Y0 \
	VEXTRACTI128 $1, Y0, X1 \
	VPADDD       X1, X0, X0 \
	VPSHUFD      $0x4E, X0, X1 \
	VPADDD       X1, X0, X0 \
	VPSHUFD      $0xB1, X0, X1 \
	VPADDD       X1, X0, X0 \
	VMOVD        X0, AX

// func dotInt8AVX2(a, b *byte, n int) int32
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y5, Y5, Y5

loop32:
	CMPQ CX, $32
	JL   tail16
	DOT32(SI, DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP  loop32

tail16:
	CMPQ CX, $16
	JL   sum
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD  Y2, Y1, Y1
	VPADDD    Y1, Y0, Y0

sum:
	SUMY0Y5
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func bitScanAVX2(blocks, table *byte, nib, nblocks int, out *uint16)
//
// For each block of 32 lanes: for each pair of nibble positions (32 bytes of the block, 32 of the table:
// position p in the low 128 bits, p+1 in the high), the low nibbles look up lanes 0-15's entries and the
// high ones lanes 16-31's (VPSHUFB, per 128 bits). The bytes are summed as 16-bit words (Y6, Y8) and their
// odd bytes alone (Y7, Y9); the even bytes' sums are the words' less the odd ones' times 256 (modulo 2^16,
// exact since every sum fits). The two halves are added, even and odd lanes interleaved, and 32 words
// written.
TEXT ·bitScanAVX2(SB), NOSPLIT, $0-40
	MOVQ blocks+0(FP), SI
	MOVQ table+8(FP), R8
	MOVQ nib+16(FP), R9
	MOVQ nblocks+24(FP), R10
	MOVQ out+32(FP), DI
	MOVQ $0x0f0f0f0f0f0f0f0f, AX
	MOVQ AX, X0
	VPBROADCASTQ X0, Y0

block:
	TESTQ R10, R10
	JZ    done
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	MOVQ  R8, DX
	MOVQ  R9, CX

pair:
	VMOVDQU (SI), Y1
	VPSRLW  $4, Y1, Y2
	VPAND   Y0, Y1, Y1
	VPAND   Y0, Y2, Y2
	VMOVDQU (DX), Y3
	VPSHUFB Y1, Y3, Y4
	VPSHUFB Y2, Y3, Y5
	VPADDW  Y4, Y6, Y6
	VPSRLW  $8, Y4, Y4
	VPADDW  Y4, Y7, Y7
	VPADDW  Y5, Y8, Y8
	VPSRLW  $8, Y5, Y5
	VPADDW  Y5, Y9, Y9
	ADDQ    $32, SI
	ADDQ    $32, DX
	SUBQ    $2, CX
	JNZ     pair

	VPSLLW       $8, Y7, Y10
	VPSUBW       Y10, Y6, Y6
	VPSLLW       $8, Y9, Y10
	VPSUBW       Y10, Y8, Y8
	VEXTRACTI128 $1, Y6, X10
	VPADDW       X10, X6, X6
	VEXTRACTI128 $1, Y7, X10
	VPADDW       X10, X7, X7
	VEXTRACTI128 $1, Y8, X10
	VPADDW       X10, X8, X8
	VEXTRACTI128 $1, Y9, X10
	VPADDW       X10, X9, X9
	VPUNPCKLWD   X7, X6, X11
	VPUNPCKHWD   X7, X6, X12
	VPUNPCKLWD   X9, X8, X13
	VPUNPCKHWD   X9, X8, X14
	VMOVDQU      X11, (DI)
	VMOVDQU      X12, 16(DI)
	VMOVDQU      X13, 32(DI)
	VMOVDQU      X14, 48(DI)
	ADDQ         $64, DI
	DECQ         R10
	JMP          block

done:
	VZEROUPPER
	RET

// func dotInt8SlotsAVX2(q, codes *byte, dim int, slots *int32, n int, out *int32)
//
// out[j] = dotInt8(q, the codes of row slots[j]) for j < n, dim a multiple of 32; while it sums one row it
// prefetches the row prefetchRows ahead, whose address the slots give (the rows are far apart, past what
// the hardware prefetcher follows).
#define prefetchRows 6
TEXT ·dotInt8SlotsAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), R8
	MOVQ codes+8(FP), R9
	MOVQ dim+16(FP), R10
	MOVQ slots+24(FP), R11
	MOVQ n+32(FP), R12
	MOVQ out+40(FP), DI
	XORQ BX, BX

row:
	CMPQ BX, R12
	JGE  rowsdone
	LEAQ prefetchRows(BX), AX
	CMPQ AX, R12
	JGE  rowdot
	MOVLQSX (R11)(AX*4), CX
	IMULQ   R10, CX
	ADDQ    R9, CX
	MOVQ    R10, DX

prefetch:
	PREFETCHT0 (CX)
	ADDQ       $64, CX
	SUBQ       $64, DX
	JG         prefetch

rowdot:
	MOVLQSX (R11)(BX*4), CX
	IMULQ   R10, CX
	ADDQ    R9, CX
	MOVQ    R8, SI
	MOVQ    R10, DX
	VPXOR   Y0, Y0, Y0
	VPXOR   Y5, Y5, Y5

rowloop:
	DOT32(SI, CX)
	ADDQ $32, SI
	ADDQ $32, CX
	SUBQ $32, DX
	JG   rowloop
	SUMY0Y5
	MOVL AX, (DI)(BX*4)
	INCQ         BX
	JMP          row

rowsdone:
	VZEROUPPER
	RET
