//go:build !amd64

package sqlite

const useAVX2 = false

func dotInt8AVX2(a, b *byte, n int) int32 { panic("sqlite: dotInt8AVX2 without AVX2") }
