package sqlite

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBitBlocks checks the block layout: the bits set for a slot read back as they were, beside every
// other slot's, after slots are removed (the last moved into the hole) and added again.
func TestBitBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{5, 64, 384, 1000} {
		v := newVectorIndex(dim)
		want := map[int64][]uint64{}
		for seq := int64(1); seq <= 100; seq++ {
			v.put(seq, randomVector(r, dim))
		}
		for seq := int64(1); seq <= 100; seq++ {
			w := make([]uint64, v.words)
			i, _ := v.slot.get(seq)
			v.getBits(int(i), w)
			want[seq] = w
		}
		v.remove([]int64{3, 50, 99, 100, 1})
		for _, seq := range []int64{3, 50, 99, 100, 1} {
			delete(want, seq)
		}
		if got := len(v.blocks); got != v.blocksFor(95) {
			t.Fatalf("dim %d: blocks of %d bytes for 95 vectors, want %d", dim, got, v.blocksFor(95))
		}
		for seq, w := range want {
			got := make([]uint64, v.words)
			i, _ := v.slot.get(seq)
			v.getBits(int(i), got)
			if !slices.Equal(got, w) {
				t.Fatalf("dim %d: seq %d reads bits %x after removals, want %x", dim, seq, got, w)
			}
		}
		// The lanes past the last vector are zero, so the file holds nothing of removed vectors.
		for i := len(v.seqs); i < len(v.blocks)/v.blockBytes()*bitLanes; i++ {
			got := make([]uint64, v.words)
			v.getBits(i, got)
			if slices.ContainsFunc(got, func(x uint64) bool { return x != 0 }) {
				t.Fatalf("dim %d: lane %d past the last vector holds bits %x", dim, i, got)
			}
		}
	}
}

// TestBitScanEstimatesSigns checks the scores of the blocks against the sum they stand for: for every
// vector, 2 × (offset + step × entries) − sum is q·signs (the query's values at the bits set count +1,
// the others −1) within the bytes' rounding, and the AVX2 scan gives the integers of the Go one.
func TestBitScanEstimatesSigns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, dim := range []int{64, 384, 1024, 1536} {
		v := newVectorIndex(dim)
		n := 200
		for seq := range n {
			v.put(int64(seq), randomVector(r, dim))
		}
		unit := make([]float32, dim)
		normalize(unit, randomVector(r, dim))
		lut := newBitLUT(unit, v.words)
		blocks := (n + bitLanes - 1) / bitLanes
		got := make([]uint16, blocks*bitLanes)
		v.bitScan(&lut, 0, blocks, got)
		plain := make([]uint16, blocks*bitLanes)
		bitScanGo(v.blocks, lut.table, v.nibbles(), blocks, plain)
		if !slices.Equal(got, plain) {
			t.Fatalf("dim %d: the scan (AVX2 %v) differs from bitScanGo", dim, useAVX2)
		}
		// Each nibble's entry is within half a step of its sum.
		tolerance := float64(v.nibbles()) * float64(lut.step)
		w := make([]uint64, v.words)
		for i := range n {
			v.getBits(i, w)
			var exact float64
			for j, x := range unit {
				if w[j/64]>>(j%64)&1 == 1 {
					exact += float64(x)
				} else {
					exact -= float64(x)
				}
			}
			est := 2*(float64(lut.offset)+float64(lut.step)*float64(got[i])) - float64(lut.sum)
			if math.Abs(est-exact) > tolerance {
				t.Fatalf("dim %d: vector %d: q·signs estimated %.4f, exact %.4f (tolerance %.4f)", dim, i, est, exact, tolerance)
			}
		}
	}
}

// TestDotSlotsMatchesDotInt8 checks the batched int8 products (AVX2, fetching rows ahead, for dimensions
// of a multiple of 32) against dotInt8 row by row, for batches shorter and longer than the rows fetched
// ahead, slots in any order and repeated.
func TestDotSlotsMatchesDotInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dim := range []int{32, 100, 384, 768} {
		v := newVectorIndex(dim)
		for seq := range 300 {
			v.put(int64(seq), randomVector(r, dim))
		}
		qcodes := make([]byte, dim)
		for i := range qcodes {
			qcodes[i] = byte(r.IntN(256))
		}
		qcodes[0] = 0x80 // -128, the extreme
		for _, n := range []int{1, 2, 5, 6, 7, 64, 300} {
			slots := make([]int32, n)
			for j := range slots {
				slots[j] = int32(r.IntN(len(v.seqs)))
			}
			got := make([]int32, n)
			v.dotSlots(qcodes, slots, got)
			for j, i := range slots {
				if want := dotInt8(qcodes, v.codes[int(i)*dim:(int(i)+1)*dim]); got[j] != want {
					t.Fatalf("dim %d, %d slots: row %d scores %d, want %d (AVX2 %v)", dim, n, i, got[j], want, useAVX2)
				}
			}
		}
	}
}

// TestSlotTable checks the seq-to-slot table against a map through sets, replacements and deletes, with
// seqs dense and then one far past them (the table becomes a map) and negative.
func TestSlotTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var table slotTable
	want := map[int64]int32{}
	check := func(when string) {
		t.Helper()
		if table.len() != len(want) {
			t.Fatalf("%s: %d slots, want %d", when, table.len(), len(want))
		}
		for seq := int64(-3); seq < 3000; seq++ {
			got, ok := table.get(seq)
			w, wok := want[seq]
			if ok != wok || got != w {
				t.Fatalf("%s: seq %d: slot %d %v, want %d %v", when, seq, got, ok, w, wok)
			}
		}
	}
	for i := range 5000 {
		seq := int64(r.IntN(2000))
		switch r.IntN(3) {
		case 0:
			table.delete(seq)
			delete(want, seq)
		default:
			table.set(seq, int32(i))
			want[seq] = int32(i)
		}
	}
	check("dense")
	if table.sparse != nil {
		t.Fatal("2000 dense seqs held in a map")
	}
	table.set(1<<40, 7)
	want[1<<40] = 7
	table.set(-2, 8)
	want[-2] = 8
	table.delete(5)
	delete(want, 5)
	check("sparse")
	if got, ok := table.get(1 << 40); !ok || got != 7 {
		t.Fatalf("seq 1<<40: slot %d %v, want 7", got, ok)
	}
}
