package sqlite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// bruteForce is the reference search: every cosine computed in float64 and sorted.
func bruteForce(vecs map[string][]float32, q []float32, k int) []string {
	type scored struct {
		id string
		s  float64
	}
	var all []scored
	for id, v := range vecs {
		var dotp, nq, nv float64
		for i := range v {
			dotp += float64(v[i]) * float64(q[i])
			nq += float64(q[i]) * float64(q[i])
			nv += float64(v[i]) * float64(v[i])
		}
		all = append(all, scored{id, dotp / math.Sqrt(nq*nv)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	var out []string
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.id)
	}
	return out
}

func randomVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func TestVectorIndexMatchesBruteForce(t *testing.T) {
	tests := []struct {
		name string
		n, k int
	}{
		{"fewer vectors than k", 5, 10},
		{"small", 300, 10},
		{"split over CPUs", parallelFrom + 500, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			const dim = 16
			r := rand.New(rand.NewPCG(1, uint64(tc.n)))
			idx := newVectorIndex(dim)
			vecs := map[string][]float32{}
			for i := range tc.n {
				id := fmt.Sprintf("c%05d", i)
				vecs[id] = randomVector(r, dim)
				idx.put(id, vecs[id])
			}
			for range 5 {
				q := randomVector(r, dim)
				var got []string
				for _, h := range idx.search(q, tc.k) {
					got = append(got, h.id)
				}
				if want := bruteForce(vecs, q, tc.k); !slices.Equal(got, want) {
					t.Fatalf("search = %v, want %v", got, want)
				}
			}
		})
	}
}

func TestVectorIndexRemove(t *testing.T) {
	const dim = 4
	r := rand.New(rand.NewPCG(7, 7))
	idx := newVectorIndex(dim)
	vecs := map[string][]float32{}
	for i := range 50 {
		id := fmt.Sprintf("c%02d", i)
		vecs[id] = randomVector(r, dim)
		idx.put(id, vecs[id])
	}
	gone := []string{"c00", "c49", "c17", "c18", "missing"}
	idx.remove(gone)
	for _, id := range gone {
		delete(vecs, id)
	}
	if idx.len() != len(vecs) {
		t.Fatalf("len after remove = %d, want %d", idx.len(), len(vecs))
	}
	replaced := "c20"
	vecs[replaced] = randomVector(r, dim)
	idx.put(replaced, vecs[replaced])
	for range 10 {
		q := randomVector(r, dim)
		var got []string
		for _, h := range idx.search(q, 50) {
			got = append(got, h.id)
		}
		if want := bruteForce(vecs, q, 50); !slices.Equal(got, want) {
			t.Fatalf("search after remove = %v, want %v", got, want)
		}
	}
}

func TestVectorIndexZeroQuery(t *testing.T) {
	idx := newVectorIndex(3)
	idx.put("a", []float32{1, 0, 0})
	if got := idx.search([]float32{0, 0, 0}, 5); len(got) != 0 {
		t.Errorf("zero query found %v, want nothing", got)
	}
	if got := idx.search([]float32{2, 0, 0}, 0); len(got) != 0 {
		t.Errorf("k=0 found %v, want nothing", got)
	}
}

func TestVectorEncoding(t *testing.T) {
	v := []float32{1.5, -2, 0, float32(math.Pi), math.SmallestNonzeroFloat32}
	b := encodeVector(v)
	if len(b) != 20 || b[0] != 0 || b[3] != 0x3f {
		t.Errorf("encodeVector(1.5, ...) starts % x, want little-endian 00 00 c0 3f", b[:4])
	}
	got, err := decodeVector(b, len(v))
	if err != nil || !slices.Equal(got, v) {
		t.Errorf("decodeVector = %v, %v; want %v", got, err, v)
	}
	if _, err := decodeVector(b, 4); err == nil {
		t.Error("decodeVector of the wrong dimension did not fail")
	}
}
