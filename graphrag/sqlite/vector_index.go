package sqlite

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/hopwise/hopwise/graphrag"
)

// vectorIndex is the in-memory index of the searchable chunk vectors, by chunk seq (the rowid of chunks).
// Each vector, normalised to unit length, is kept twice and compactly, never as float32: as int8 codes with
// a scale of its own (dim bytes, a quarter of float32), and as one sign bit per dimension of the vector
// less the index's mean (dim/8 bytes) with one factor that corrects what the signs lose of its length
// (the estimator of RaBitQ, Gao and Long, SIGMOD 2024). A search estimates every vector's cosine with the
// query from its bits (bitScores: 96 lookups of four bits for 384 dimensions, 32 vectors at a time, see
// vector_index_bits.go), ranks the best candidates again by their int8 dot product, and the caller ranks
// the best of those exactly from the float32 vectors of the file (vector_search.go). Below candidates(n,
// k) vectors every vector is a candidate. Slot i holds seqs[i], scale[i], factor[i], codes[i*dim:] and its
// bits in blocks (lane i%bitLanes of block i/bitLanes); slot maps a seq to its slot.
type vectorIndex struct {
	mu    sync.RWMutex
	dim   int
	words int // uint64 words of one vector's bits
	// mean is the centre subtracted before taking signs, of the first meanOf vectors; taken again, with
	// every vector's bits, each time the index doubles up to recentreUpTo vectors.
	mean   []float32
	meanOf int
	seqs   []int64
	slot   slotTable
	scale  []float32
	codes  []byte // int8 values
	blocks []byte // the bits, bitLanes vectors a block (vector_index_bits.go)
	// factor is |r|²/|r|₁ of r, the vector less the mean: the cosine estimate is q·mean + factor × q·signs.
	factor []float32
	// changes is the file's count of vector changes this index holds (vector_changes, see vectorIndexFile):
	// -1 once the file changed in a way this index did not follow.
	changes int64
	// saved is the change count the index file on disk holds (-1: none, or not this index's).
	saved int64
	// origin says where the index came from when the store opened: its file, or a rebuild and why.
	origin string
}

func newVectorIndex(dim int) *vectorIndex {
	return &vectorIndex{dim: dim, words: (dim + 63) / 64, mean: make([]float32, dim), saved: -1}
}

func (v *vectorIndex) len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.seqs)
}

// has reports whether the chunk seq has a vector in the index.
func (v *vectorIndex) has(seq int64) bool {
	v.mu.RLock()
	defer v.mu.RUnlock()
	_, ok := v.slot.get(seq)
	return ok
}

// put stores vec for chunk seq, replacing any it had.
func (v *vectorIndex) put(seq int64, vec []float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.putLocked(seq, vec)
}

func (v *vectorIndex) putLocked(seq int64, vec []float32) {
	i, ok := v.slot.get(seq)
	if !ok {
		i = int32(len(v.seqs))
		v.slot.set(seq, i)
		v.seqs = append(v.seqs, seq)
		v.scale = append(v.scale, 0)
		v.factor = append(v.factor, 0)
		v.codes = append(v.codes, make([]byte, v.dim)...)
		if want := v.blocksFor(len(v.seqs)); len(v.blocks) < want {
			v.blocks = append(v.blocks, make([]byte, want-len(v.blocks))...)
		}
	}
	unit := make([]float32, v.dim)
	normalize(unit, vec[:min(len(vec), v.dim)])
	v.scale[i] = quantize(v.codes[int(i)*v.dim:(int(i)+1)*v.dim], unit)
	v.binarize(int(i))
	if n := len(v.seqs); n >= recentreFrom && n >= 2*v.meanOf && n <= recentreUpTo {
		v.recentre()
	}
}

// Recentring: the mean is taken again at recentreFrom vectors and each time their number doubles, up to
// recentreUpTo (by then it no longer moves; taking it costs a pass over every vector).
const (
	recentreFrom = 256
	recentreUpTo = 1 << 16
)

// recentre takes the mean of every vector and their bits again.
func (v *vectorIndex) recentre() {
	sum := make([]float64, v.dim)
	for i := range v.seqs {
		codes, s := v.codes[i*v.dim:(i+1)*v.dim], float64(v.scale[i])
		for j, c := range codes {
			sum[j] += float64(int8(c)) * s
		}
	}
	for j := range sum {
		v.mean[j] = float32(sum[j] / float64(len(v.seqs)))
	}
	v.meanOf = len(v.seqs)
	for i := range v.seqs {
		v.binarize(i)
	}
}

// binarize sets slot i's bits and factor from its codes: bit j is whether value j exceeds the mean's.
func (v *vectorIndex) binarize(i int) {
	codes, s := v.codes[i*v.dim:(i+1)*v.dim], v.scale[i]
	var words [16]uint64
	out := words[:]
	if v.words > len(words) {
		out = make([]uint64, v.words)
	}
	out = out[:v.words]
	defer v.setBits(i, out)
	var l1, l2 float64
	for j, c := range codes {
		r := float64(float32(int8(c))*s - v.mean[j])
		l1, l2 = l1+math.Abs(r), l2+r*r
		if r > 0 {
			out[j/64] |= 1 << (j % 64)
		}
	}
	v.factor[i] = 0
	if l1 > 0 {
		v.factor[i] = float32(l2 / l1)
	}
}

// quantize writes unit as int8 codes scaled so that its largest value is 127, and returns the scale
// (value ≈ scale × code); a zero vector is all zeros with scale 0.
func quantize(codes []byte, unit []float32) float32 {
	var peak float32
	for _, x := range unit {
		peak = max(peak, abs32(x))
	}
	if peak == 0 {
		clear(codes)
		return 0
	}
	inv := 127 / peak
	for j, x := range unit {
		codes[j] = byte(int8(max(-127, min(127, math.Round(float64(x*inv))))))
	}
	return peak / 127
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// swap drops the vectors of the chunks remove names and stores add's, at once for a search.
func (v *vectorIndex) swap(add map[int64][]float32, remove []int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(remove)
	for seq, vec := range add {
		v.putLocked(seq, vec)
	}
}

// remove drops the vectors of these chunks, moving the last slot into each hole.
func (v *vectorIndex) remove(seqs []int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(seqs)
}

func (v *vectorIndex) removeLocked(seqs []int64) {
	for _, seq := range seqs {
		i, ok := v.slot.get(seq)
		if !ok {
			continue
		}
		last := len(v.seqs) - 1
		w := make([]uint64, v.words)
		if int(i) != last {
			v.seqs[i], v.scale[i], v.factor[i] = v.seqs[last], v.scale[last], v.factor[last]
			copy(v.codes[int(i)*v.dim:(int(i)+1)*v.dim], v.codes[last*v.dim:])
			v.getBits(last, w)
			v.setBits(int(i), w)
			clear(w)
			v.slot.set(v.seqs[i], i)
		}
		v.setBits(last, w) // a lane past the last vector holds no bits
		v.seqs, v.scale, v.factor = v.seqs[:last], v.scale[:last], v.factor[:last]
		v.codes, v.blocks = v.codes[:last*v.dim], v.blocks[:v.blocksFor(last)]
		v.slot.delete(seq)
	}
}

// replaceWith takes n's vectors, dimension and mean, at once for a search; the change count stays this
// index's (it follows the file, not the vectors).
func (v *vectorIndex) replaceWith(n *vectorIndex) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.dim, v.words, v.mean, v.meanOf = n.dim, n.words, n.mean, n.meanOf
	v.seqs, v.slot, v.scale, v.codes, v.blocks, v.factor = n.seqs, n.slot, n.scale, n.codes, n.blocks, n.factor
}

// track records a vector-changing transaction of this store, which found the file's change count at before
// and left it at after: the index follows the file when it held before, else it no longer does.
func (v *vectorIndex) track(before, after int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.changes == before && before >= 0 {
		v.changes = after
	} else {
		v.changes = -1
	}
}

// hit is one search result: a chunk seq and its cosine similarity to the query (of the int8 codes, until
// the caller re-ranks it).
type hit struct {
	seq   int64
	score float32
}

// Search sizes. parallelFrom is the number of vectors from which a scan is split over the CPUs;
// candidates(n, k) is how many of n vectors the bits keep for the int8 ranking: a share of them (the
// bits' estimate is rough, and the vectors that compete with the nearest grow with n), all below
// minCandidates.
const (
	parallelFrom   = 16384
	minCandidates  = 4096
	candidateShare = 20 // one in
)

func candidates(n, k int) int { return min(n, max(minCandidates, 64*k, n/candidateShare)) }

// search returns the k chunks whose int8 codes are most similar to q, best first. A zero query matches
// nothing.
func (v *vectorIndex) search(q []float32, k int) []hit {
	unit := make([]float32, len(q))
	if !normalize(unit, q) || k <= 0 {
		return nil
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if len(unit) != v.dim || len(v.seqs) == 0 {
		return nil
	}
	qcodes := make([]byte, v.dim)
	qscale := quantize(qcodes, unit)
	var slots []int32
	if n := len(v.seqs); n > candidates(n, k) {
		slots = v.nearestBits(unit, candidates(n, k))
	} else {
		slots = make([]int32, n)
		for i := range slots {
			slots[i] = int32(i)
		}
	}
	shards := 1
	if len(slots) >= parallelFrom {
		shards = min(runtime.GOMAXPROCS(0), 8)
	}
	tops := make([]topK, shards)
	var wg sync.WaitGroup
	for s := range shards {
		part := slots[s*len(slots)/shards : (s+1)*len(slots)/shards]
		tops[s] = topK{k: k}
		wg.Go(func() {
			dots := make([]int32, min(len(part), dotBatch))
			for len(part) > 0 {
				batch := part[:min(len(part), dotBatch)]
				part = part[len(batch):]
				v.dotSlots(qcodes, batch, dots)
				for j, i := range batch {
					tops[s].offer(int(i), float32(dots[j])*qscale*v.scale[i])
				}
			}
		})
	}
	wg.Wait()
	var all []hit
	for _, t := range tops {
		for j, h := range t.h {
			all = append(all, hit{seq: v.seqs[t.slots[j]], score: h.score})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].seq < all[j].seq
	})
	return all[:min(k, len(all))]
}

// dotBatch is how many rows search scores with dotSlots at a time.
const dotBatch = 1024

// dotSlots writes into out the int8 dot product of qcodes with the codes of each slot: with AVX2 and a
// dimension of a multiple of 32, in one call that fetches the rows ahead of their use.
func (v *vectorIndex) dotSlots(qcodes []byte, slots []int32, out []int32) {
	out = out[:len(slots)]
	if useAVX2 && v.dim%32 == 0 && len(slots) > 0 {
		dotInt8SlotsAVX2(&qcodes[0], &v.codes[0], v.dim, &slots[0], len(slots), &out[0])
		return
	}
	for j, i := range slots {
		out[j] = dotInt8(qcodes, v.codes[int(i)*v.dim:(int(i)+1)*v.dim])
	}
}

// bucketPool holds the score buffers of searches: each vector's histogram bucket.
var bucketPool sync.Pool

// scoreBuckets is the resolution of the histogram nearestBits cuts its candidates from.
const scoreBuckets = 4096

// nearestBits returns the c slots whose bits estimate the highest cosine with unit (of those in the
// boundary bucket, the first by slot), in slot order: one pass estimating every score into a histogram
// of them, then one collecting the slots above the bucket the histogram says.
func (v *vectorIndex) nearestBits(unit []float32, c int) []int32 {
	n := len(v.seqs)
	lut := newBitLUT(unit, v.words)
	buf, _ := bucketPool.Get().(*[]uint16)
	if buf == nil || cap(*buf) < n {
		b := make([]uint16, n+n/4)
		buf = &b
	}
	defer bucketPool.Put(buf)
	buckets := (*buf)[:n]
	blocks := (n + bitLanes - 1) / bitLanes
	shards := 1
	if n >= parallelFrom {
		shards = min(runtime.GOMAXPROCS(0), 8)
	}
	hists := make([][]int, shards)
	var wg sync.WaitGroup
	for s := range shards {
		lo, hi := s*blocks/shards, (s+1)*blocks/shards
		hists[s] = make([]int, scoreBuckets)
		wg.Go(func() { v.bitScores(&lut, buckets, hists[s], lo, hi) })
	}
	wg.Wait()
	// cut is the highest bucket at which c slots are reached; take all above it, then the first `room`
	// in it.
	cut, room := 0, c
	for b := scoreBuckets - 1; b >= 0; b-- {
		count := 0
		for _, h := range hists {
			count += h[b]
		}
		if count >= room {
			cut = b
			break
		}
		room -= count
	}
	out := make([]int32, 0, c)
	for i, b := range buckets {
		if int(b) > cut {
			out = append(out, int32(i))
		} else if int(b) == cut && room > 0 {
			out = append(out, int32(i))
			room--
		}
	}
	return out
}

// bucket is the histogram bucket of an estimated cosine: [-1.5, 1.5] in scoreBuckets steps.
func bucket(e float32) int {
	return max(0, min(scoreBuckets-1, int((e+1.5)*(scoreBuckets/3))))
}

// scanBlocks is how many blocks of bits bitScores scores at a time.
const scanBlocks = 64

// bitScores writes the bucket of the estimated cosine less q·mean (the same for every vector) of the
// slots of blocks lo..hi-1 into buckets and counts them in hist.
func (v *vectorIndex) bitScores(lut *bitLUT, buckets []uint16, hist []int, lo, hi int) {
	n := len(v.seqs)
	// q·signs ≈ 2 × (offset + step × sum of entries) − sum
	a, b := 2*lut.offset-lut.sum, 2*lut.step
	sums := make([]uint16, scanBlocks*bitLanes)
	for first := lo; first < hi; first += scanBlocks {
		m := min(scanBlocks, hi-first)
		v.bitScan(lut, first, m, sums)
		base := first * bitLanes
		for j, s := range sums[:min(m*bitLanes, n-base)] {
			i := base + j
			e := bucket(v.factor[i] * (a + b*float32(s)))
			buckets[i] = uint16(e)
			hist[e]++
		}
	}
}

// topK keeps the k best scores seen in a min-heap: the root is the worst kept, so most offers cost one
// comparison.
type topK struct {
	k     int
	h     []hit
	slots []int
}

func (t *topK) offer(slot int, score float32) {
	if len(t.h) < t.k {
		t.h = append(t.h, hit{score: score})
		t.slots = append(t.slots, slot)
		t.up(len(t.h) - 1)
		return
	}
	if score <= t.h[0].score {
		return
	}
	t.h[0].score, t.slots[0] = score, slot
	t.down(0)
}

func (t *topK) swap(i, j int) {
	t.h[i], t.h[j] = t.h[j], t.h[i]
	t.slots[i], t.slots[j] = t.slots[j], t.slots[i]
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if t.h[p].score <= t.h[i].score {
			return
		}
		t.swap(i, p)
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.h)
	for {
		least := i
		if l := 2*i + 1; l < n && t.h[l].score < t.h[least].score {
			least = l
		}
		if r := 2*i + 2; r < n && t.h[r].score < t.h[least].score {
			least = r
		}
		if least == i {
			return
		}
		t.swap(i, least)
		i = least
	}
}

// dotInt8 is the inner product of two int8 code vectors of one length: with AVX2, sixteen values at a
// time (dot_amd64.s), the rest by dotInt8Go.
func dotInt8(a, b []byte) int32 {
	b = b[:len(a)]
	n := 0
	var s int32
	if useAVX2 {
		n = len(a) &^ 15
		if n > 0 {
			s = dotInt8AVX2(&a[0], &b[0], n)
		}
	}
	return s + dotInt8Go(a[n:], b[n:])
}

// dotInt8Go is dotInt8 in Go, unrolled by eight.
func dotInt8Go(a, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(int8(x[0]))*int32(int8(y[0])) + int32(int8(x[4]))*int32(int8(y[4]))
		s1 += int32(int8(x[1]))*int32(int8(y[1])) + int32(int8(x[5]))*int32(int8(y[5]))
		s2 += int32(int8(x[2]))*int32(int8(y[2])) + int32(int8(x[6]))*int32(int8(y[6]))
		s3 += int32(int8(x[3]))*int32(int8(y[3])) + int32(int8(x[7]))*int32(int8(y[7]))
	}
	for ; i < len(a); i++ {
		s0 += int32(int8(a[i])) * int32(int8(b[i]))
	}
	return s0 + s1 + s2 + s3
}

// dot is the inner product of two vectors of one length, unrolled by four.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// normalize writes src scaled to unit length into dst and reports whether src had a length; a zero
// vector is written as zeros.
func normalize(dst, src []float32) bool {
	var sum float64
	for _, x := range src {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsNaN(sum) || math.IsInf(sum, 0) {
		clear(dst)
		return false
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range src {
		dst[i] = float32(float64(x) * inv)
	}
	return true
}

// encodeVector is the BLOB form of a vector: little-endian float32 (graphrag.VectorBytes).
func encodeVector(vec []float32) []byte { return graphrag.VectorBytes(vec) }

// decodeVector reads the BLOB form of a vector of dim values.
func decodeVector(b []byte, dim int) ([]float32, error) {
	if len(b) != 4*dim {
		return nil, fmt.Errorf("vector of %d bytes, want %d for dimension %d", len(b), 4*dim, dim)
	}
	return graphrag.VectorFromBytes(b)
}
