package sqlite

import (
	"math"
)

// The sign bits of the vectors are kept in blocks of bitLanes vectors, laid out for scoring a block at a
// time with table lookups of four bits (the "fast scan" of product quantisation, André et al., VLDB 2015,
// as FAISS does it): nibble p of a vector's bits (its dimensions 4p..4p+3) selects one of the 16 sums of
// the query's values there, so a vector's q·signs is the sum of its nibbles' entries. A block holds, for
// each nibble position p, 16 bytes: byte t has lane t's nibble in its low half and lane t+16's in its high
// half. With the entries quantised to bytes, one 16-byte shuffle looks up 16 lanes' nibbles at once
// (bitScanAVX2); bitScanGo computes the same integers one lane at a time.

// bitLanes is the number of vectors in one block of bits.
const bitLanes = 32

// nibbles is the number of four-bit positions of one vector's bits; blockBytes the size of a block.
func (v *vectorIndex) nibbles() int    { return v.words * 16 }
func (v *vectorIndex) blockBytes() int { return v.words * 16 * 16 }

// setBits writes slot i's bits, words uint64 of them, into its block.
func (v *vectorIndex) setBits(i int, w []uint64) {
	block := v.blocks[i/bitLanes*v.blockBytes():][:v.blockBytes()]
	lane := i % bitLanes
	at, high := lane%16, lane >= 16
	for p := range v.nibbles() {
		nib := byte(w[p/16]>>(4*(p%16))) & 15
		b := &block[p*16+at]
		if high {
			*b = *b&0x0f | nib<<4
		} else {
			*b = *b&0xf0 | nib
		}
	}
}

// getBits reads slot i's bits from its block into w.
func (v *vectorIndex) getBits(i int, w []uint64) {
	block := v.blocks[i/bitLanes*v.blockBytes():][:v.blockBytes()]
	lane := i % bitLanes
	at, shift := lane%16, 0
	if lane >= 16 {
		shift = 4
	}
	clear(w)
	for p := range v.nibbles() {
		w[p/16] |= uint64(block[p*16+at]>>shift&15) << (4 * (p % 16))
	}
}

// blocksFor is the length of the blocks holding n vectors' bits.
func (v *vectorIndex) blocksFor(n int) int { return (n + bitLanes - 1) / bitLanes * v.blockBytes() }

// bitLUT is a query's tables for scoring bits: for each nibble position the 16 sums of the query's values
// at the bits set, quantised to bytes as base[p] + step × entry; q·signs ≈ 2 × (offset + step × Σ entries)
// − sum, where offset is Σ base[p] and sum the sum of the query's values.
type bitLUT struct {
	table        []byte // nibbles × 16
	offset, step float32
	sum          float32
}

// newBitLUT builds the tables of unit for dim values in words uint64 of bits. The entries' largest value
// keeps a sum over every nibble within 16 bits (bitScanAVX2 adds them so): 255 up to 1024 dimensions.
func newBitLUT(unit []float32, words int) bitLUT {
	nib := words * 16
	at := func(j int) float32 {
		if j < len(unit) {
			return unit[j]
		}
		return 0
	}
	sums := make([]float32, nib*16)
	lows := make([]float32, nib)
	var width, total float32
	for p := range nib {
		t := sums[p*16 : (p+1)*16]
		for b := 1; b < 16; b++ {
			low := 0
			for b>>low&1 == 0 {
				low++
			}
			t[b] = t[b&(b-1)] + at(4*p+low)
		}
		lo, hi := t[0], t[0]
		for _, x := range t {
			lo, hi = min(lo, x), max(hi, x)
		}
		lows[p], width = lo, max(width, hi-lo)
	}
	for _, x := range unit {
		total += x
	}
	top := float32(min(255, 65535/nib))
	step := width / top
	if step == 0 {
		step = 1
	}
	out := bitLUT{table: make([]byte, nib*16), step: step, sum: total}
	for p := range nib {
		out.offset += lows[p]
		for b := range 16 {
			q := math.Round(float64((sums[p*16+b] - lows[p]) / step))
			out.table[p*16+b] = byte(max(0, min(float64(top), q)))
		}
	}
	return out
}

// bitScan writes into out the sums of lut's entries for the vectors of nblocks blocks from firstBlock on,
// bitLanes values a block.
func (v *vectorIndex) bitScan(lut *bitLUT, firstBlock, nblocks int, out []uint16) {
	bb := v.blockBytes()
	blocks := v.blocks[firstBlock*bb : (firstBlock+nblocks)*bb]
	out = out[:nblocks*bitLanes]
	if useAVX2 && nblocks > 0 {
		bitScanAVX2(&blocks[0], &lut.table[0], v.nibbles(), nblocks, &out[0])
		return
	}
	bitScanGo(blocks, lut.table, v.nibbles(), nblocks, out)
}

// bitScanGo is bitScanAVX2 in Go.
func bitScanGo(blocks, table []byte, nib, nblocks int, out []uint16) {
	bb := nib * 16
	for b := range nblocks {
		block := blocks[b*bb : (b+1)*bb]
		var acc [bitLanes]uint16
		for p := range nib {
			t := table[p*16 : (p+1)*16 : (p+1)*16]
			row := block[p*16 : (p+1)*16 : (p+1)*16]
			for l, x := range row {
				acc[l] += uint16(t[x&15])
				acc[l+16] += uint16(t[x>>4])
			}
		}
		copy(out[b*bitLanes:], acc[:])
	}
}
