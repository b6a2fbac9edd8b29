//go:build !amd64

package sqlite

const useAVX2 = false

func dotInt8AVX2(a, b *byte, n int) int32 { panic("sqlite: dotInt8AVX2 without AVX2") }

func bitScanAVX2(blocks, table *byte, nib, nblocks int, out *uint16) {
	panic("sqlite: bitScanAVX2 without AVX2")
}

func dotInt8SlotsAVX2(q, codes *byte, dim int, slots *int32, n int, out *int32) {
	panic("sqlite: dotInt8SlotsAVX2 without AVX2")
}
