package sqlite

import "golang.org/x/sys/cpu"

// useAVX2 is whether dotInt8 runs dotInt8AVX2 (the CPU and the OS support AVX2).
var useAVX2 = cpu.X86.HasAVX2

// dotInt8AVX2 is the inner product of the n int8 values at a and b; n is a multiple of 16. Sign-extended
// to 16 bits, multiplied and added in pairs (VPMADDWD), summed in 32 bits: the same integer as dotInt8Go.
//
//go:noescape
func dotInt8AVX2(a, b *byte, n int) int32

// bitScanAVX2 is bitScanGo with AVX2 (vector_index_bits.go): nib is even, blocks holds nblocks blocks of
// nib×16 bytes, table nib×16 bytes, out room for 32 values a block.
//
//go:noescape
func bitScanAVX2(blocks, table *byte, nib, nblocks int, out *uint16)

// dotInt8SlotsAVX2 is dotInt8 of q with each of n rows of codes, the rows slots names, into out; dim (the
// length of q and of a row) is a multiple of 32.
//
//go:noescape
func dotInt8SlotsAVX2(q, codes *byte, dim int, slots *int32, n int, out *int32)
