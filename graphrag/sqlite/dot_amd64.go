package sqlite

import "golang.org/x/sys/cpu"

// useAVX2 is whether dotInt8 runs dotInt8AVX2 (the CPU and the OS support AVX2).
var useAVX2 = cpu.X86.HasAVX2

// dotInt8AVX2 is the inner product of the n int8 values at a and b; n is a multiple of 16. Sign-extended
// to 16 bits, multiplied and added in pairs (VPMADDWD), summed in 32 bits: the same integer as dotInt8Go.
//
//go:noescape
func dotInt8AVX2(a, b *byte, n int) int32
