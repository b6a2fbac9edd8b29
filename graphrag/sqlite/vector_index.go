package sqlite

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
)

// vectorIndex is the in-memory copy of the chunk vectors, normalised to unit length and laid out in one
// flat slice so an exact cosine search is one pass of dot products. Slot i holds ids[i], docs[i] and
// data[i*dim:(i+1)*dim]; slot maps a chunk ID to its slot.
type vectorIndex struct {
	mu   sync.RWMutex
	dim  int
	ids  []string
	data []float32
	slot map[string]int
}

func newVectorIndex(dim int) *vectorIndex {
	return &vectorIndex{dim: dim, slot: make(map[string]int)}
}

func (v *vectorIndex) len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.ids)
}

// put stores the normalised vec for chunk id, replacing any it had.
func (v *vectorIndex) put(id string, vec []float32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.putLocked(id, vec)
}

func (v *vectorIndex) putLocked(id string, vec []float32) {
	i, ok := v.slot[id]
	if !ok {
		i = len(v.ids)
		v.slot[id] = i
		v.ids = append(v.ids, id)
		v.data = append(v.data, make([]float32, v.dim)...)
	}
	normalize(v.data[i*v.dim:(i+1)*v.dim], vec)
}

// swap drops the vectors of the chunks remove names and stores add's, at once for a search.
func (v *vectorIndex) swap(add map[string][]float32, remove []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(remove)
	for id, vec := range add {
		v.putLocked(id, vec)
	}
}

// remove drops the vectors of these chunks, moving the last slot into each hole.
func (v *vectorIndex) remove(ids []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.removeLocked(ids)
}

func (v *vectorIndex) removeLocked(ids []string) {
	for _, id := range ids {
		i, ok := v.slot[id]
		if !ok {
			continue
		}
		last := len(v.ids) - 1
		if i != last {
			v.ids[i] = v.ids[last]
			copy(v.data[i*v.dim:(i+1)*v.dim], v.data[last*v.dim:])
			v.slot[v.ids[i]] = i
		}
		v.ids = v.ids[:last]
		v.data = v.data[:last*v.dim]
		delete(v.slot, id)
	}
}

// hit is one search result: a chunk ID and its cosine similarity to the query.
type hit struct {
	id    string
	score float32
}

// parallelFrom is the number of vectors from which a search splits the scan over the CPUs.
const parallelFrom = 16384

// search returns the k chunks most similar to q, best first. A zero query matches nothing.
func (v *vectorIndex) search(q []float32, k int) []hit {
	unit := make([]float32, len(q))
	if !normalize(unit, q) || k <= 0 {
		return nil
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	n := len(v.ids)
	shards := 1
	if n >= parallelFrom {
		shards = min(runtime.GOMAXPROCS(0), 8)
	}
	tops := make([]topK, shards)
	var wg sync.WaitGroup
	for s := range shards {
		lo, hi := s*n/shards, (s+1)*n/shards
		tops[s] = topK{k: k}
		wg.Go(func() { v.scan(&tops[s], unit, lo, hi) })
	}
	wg.Wait()
	var all []hit
	for _, t := range tops {
		all = append(all, t.h...)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].id < all[j].id
	})
	return all[:min(k, len(all))]
}

// scan offers the slots lo..hi-1 to top.
func (v *vectorIndex) scan(top *topK, q []float32, lo, hi int) {
	dim := v.dim
	for i := lo; i < hi; i++ {
		top.offer(i, dot(q, v.data[i*dim:(i+1)*dim]))
	}
	for j := range top.h {
		top.h[j].id = v.ids[top.slots[j]]
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

// encodeVector is the BLOB form of a vector: little-endian float32.
func encodeVector(vec []float32) []byte {
	b := make([]byte, 4*len(vec))
	for i, x := range vec {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector reads the BLOB form of a vector of dim values.
func decodeVector(b []byte, dim int) ([]float32, error) {
	if len(b) != 4*dim {
		return nil, fmt.Errorf("vector of %d bytes, want %d for dimension %d", len(b), 4*dim, dim)
	}
	vec := make([]float32, dim)
	for i := range vec {
		vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return vec, nil
}
