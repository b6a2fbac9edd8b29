package sqlite

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// bruteForce is the reference search: every cosine computed in float64 and sorted.
func bruteForce[K comparable](vecs map[K][]float32, q []float32, k int, less func(a, b K) bool) []K {
	type scored struct {
		id K
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
	sort.Slice(all, func(i, j int) bool {
		if all[i].s != all[j].s {
			return all[i].s > all[j].s
		}
		return less(all[i].id, all[j].id)
	})
	var out []K
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

// embeddingLike returns n vectors shaped as a sentence-embedding model's: a shared offset (every vector
// leans one way, as real ones do), one of 300 topics, and noise of their own.
func embeddingLike(r *rand.Rand, n, dim int) (vecs [][]float32, topic func(r *rand.Rand) []float32) {
	offset := randomVector(r, dim)
	topics := make([][]float32, 300)
	for i := range topics {
		topics[i] = randomVector(r, dim)
	}
	topic = func(r *rand.Rand) []float32 {
		t, v := topics[r.IntN(len(topics))], make([]float32, dim)
		for j := range v {
			v[j] = 0.8*offset[j] + t[j] + 0.9*float32(r.NormFloat64())
		}
		return v
	}
	vecs = make([][]float32, n)
	for i := range vecs {
		vecs[i] = topic(r)
	}
	return vecs, topic
}

func lessSeq(a, b int64) bool { return a < b }

// TestVectorIndexRecall checks the approximate search on a set far larger than its candidates: of the 10
// vectors nearest each query, the first k+graphrag.RerankExtra(k) the index returns (which SearchVector ranks
// exactly) hold at least 95%, and the first 10 alone at least 90%.
func TestVectorIndexRecall(t *testing.T) {
	const n, dim, k, queries = 12_000, 384, 10, 30
	r := rand.New(rand.NewPCG(3, 5))
	vecs, topic := embeddingLike(r, n, dim)
	idx := newVectorIndex(dim)
	byID := make(map[int64][]float32, n)
	for i, v := range vecs {
		idx.put(int64(i+1), v)
		byID[int64(i+1)] = v
	}
	if n <= candidates(n, k) {
		t.Fatalf("the set (%d) must exceed the candidates (%d) for the bits to be used", n, candidates(n, k))
	}
	var found, foundTop float64
	for range queries {
		q := topic(r)
		want := bruteForce(byID, q, k, lessSeq)
		var got []int64
		for _, h := range idx.search(q, k+graphrag.RerankExtra(k)) {
			got = append(got, h.seq)
		}
		for i, seq := range want {
			if at := slices.Index(got, seq); at >= 0 {
				found++
				if at < k {
					foundTop++
				}
			} else {
				t.Logf("missed the %d-th nearest", i+1)
			}
		}
	}
	recall, recallTop := found/(queries*k), foundTop/(queries*k)
	t.Logf("recall@%d = %.3f of the re-ranked candidates, %.3f of the first %d", k, recall, recallTop, k)
	if recall < 0.95 || recallTop < 0.9 {
		t.Errorf("recall@%d = %.3f (first %d: %.3f), want at least 0.95 (0.9)", k, recall, k, recallTop)
	}
}

// TestSearchVectorIsExact: below the candidates every vector is ranked by int8 codes, and SearchVector
// ranks the best of them again from the file's vectors: the result is the exact one, in order.
func TestSearchVectorIsExact(t *testing.T) {
	for _, n := range []int{5, 300} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			const dim, k = 16, 10
			s := openTemp(t, t.TempDir()+"/hopwise.db", dim)
			r := rand.New(rand.NewPCG(1, uint64(n)))
			vecs := putVectors(t, s, "doc.txt", n, func(int) []float32 { return randomVector(r, dim) })
			for range 10 {
				q := randomVector(r, dim)
				got, err := s.SearchVector(t.Context(), q, k)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for i, c := range got {
					ids = append(ids, c.ID)
					if c.Rank != i+1 {
						t.Errorf("rank %d at %d", c.Rank, i)
					}
				}
				if want := bruteForce(vecs, q, k, func(a, b string) bool { return a < b }); !slices.Equal(ids, want) {
					t.Fatalf("SearchVector = %v, want %v", ids, want)
				}
			}
		})
	}
}

// putVectors stores one document of n chunks with the vectors vec gives and returns them by chunk ID.
func putVectors(t *testing.T, s *Store, name string, n int, vec func(i int) []float32) map[string][]float32 {
	t.Helper()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("%s part %d", name, i)
	}
	return putTexts(t, s, name, texts, vec)
}

// putTexts stores one document with a chunk of each text, embedded with the vectors vec gives unless vec
// is nil (the chunks stay pending), and returns the vectors by chunk ID.
func putTexts(t *testing.T, s *Store, name string, texts []string, vec func(i int) []float32) map[string][]float32 {
	t.Helper()
	src := []byte("content of " + name)
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: name}
	if _, _, err := s.PutDocument(t.Context(), doc, src); err != nil {
		t.Fatal(err)
	}
	chunks := make([]graphrag.Chunk, len(texts))
	vecs := make(map[string][]float32, len(texts))
	for i, text := range texts {
		chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, i), Ordinal: i, Text: text}
		if vec != nil {
			vecs[chunks[i].ID] = vec(i)
		}
	}
	if err := s.PutChunks(t.Context(), doc.ID, chunks); err != nil {
		t.Fatal(err)
	}
	if vec != nil {
		if err := s.SetEmbeddings(t.Context(), vecs); err != nil {
			t.Fatal(err)
		}
	}
	return vecs
}

func TestVectorIndexRemoveAndReplace(t *testing.T) {
	const dim = 32
	r := rand.New(rand.NewPCG(7, 7))
	idx := newVectorIndex(dim)
	vecs := map[int64][]float32{}
	for i := range 600 { // past recentreFrom: the bits are taken again on the way
		vecs[int64(i)] = randomVector(r, dim)
		idx.put(int64(i), vecs[int64(i)])
	}
	gone := []int64{0, 599, 17, 18, 12345}
	idx.remove(gone)
	for _, seq := range gone {
		delete(vecs, seq)
	}
	if idx.len() != len(vecs) {
		t.Fatalf("len after remove = %d, want %d", idx.len(), len(vecs))
	}
	vecs[20] = randomVector(r, dim)
	idx.put(20, vecs[20])
	for seq, v := range vecs {
		hits := idx.search(v, 1)
		if len(hits) != 1 || hits[0].seq != seq {
			t.Fatalf("search for chunk %d's own vector = %v", seq, hits)
		}
	}
	for _, seq := range gone {
		if idx.has(seq) {
			t.Errorf("removed chunk %d still indexed", seq)
		}
	}
	idx.swap(map[int64][]float32{1000: randomVector(r, dim)}, []int64{1, 2})
	if idx.has(1) || idx.has(2) || !idx.has(1000) || idx.len() != len(vecs)-1 {
		t.Errorf("after swap: has 1 %v, 2 %v, 1000 %v, len %d (want %d)", idx.has(1), idx.has(2), idx.has(1000), idx.len(), len(vecs)-1)
	}
}

func TestVectorIndexZeroQuery(t *testing.T) {
	idx := newVectorIndex(3)
	idx.put(1, []float32{1, 0, 0})
	if got := idx.search([]float32{0, 0, 0}, 5); len(got) != 0 {
		t.Errorf("zero query found %v, want nothing", got)
	}
	if got := idx.search([]float32{2, 0, 0}, 0); len(got) != 0 {
		t.Errorf("k=0 found %v, want nothing", got)
	}
	idx.put(2, []float32{0, 0, 0})
	if got := idx.search([]float32{0, 1, 0}, 5); len(got) != 2 || got[0].score != 0 {
		t.Errorf("search beside a zero vector = %v, want both at score 0", got)
	}
}

func TestQuantize(t *testing.T) {
	unit := []float32{0.6, -0.8, 0, 0.0001}
	codes := make([]byte, 4)
	scale := quantize(codes, unit)
	if int8(codes[1]) != -127 || int8(codes[0]) != 95 || codes[2] != 0 || codes[3] != 0 {
		t.Errorf("codes = %v, want [95 -127 0 0]", []int8{int8(codes[0]), int8(codes[1]), int8(codes[2]), int8(codes[3])})
	}
	if got := float32(int8(codes[1])) * scale; math.Abs(float64(got+0.8)) > 1e-6 {
		t.Errorf("-127 × scale = %v, want -0.8", got)
	}
	if dotInt8(codes, codes) != 95*95+127*127 {
		t.Errorf("dotInt8 = %d", dotInt8(codes, codes))
	}
	long := make([]byte, 19) // not a multiple of eight
	for i := range long {
		long[i] = byte(int8(i - 9))
	}
	want := int32(0)
	for i := range long {
		want += int32(i-9) * int32(i-9)
	}
	if got := dotInt8(long, long); got != want {
		t.Errorf("dotInt8 of 19 values = %d, want %d", got, want)
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

// TestDotInt8MatchesPlainSum checks dotInt8 (AVX2 where the CPU has it) against a plain sum, for lengths
// around the 16- and 32-value steps and at the int8 extremes (-128 × -128 in every place).
func TestDotInt8MatchesPlainSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 48, 63, 64, 100, 384, 385, 768, 1024} {
		a, b := make([]byte, n), make([]byte, n)
		for i := range a {
			a[i], b[i] = byte(r.IntN(256)), byte(r.IntN(256))
		}
		for _, pair := range [][2][]byte{{a, b}, {bytes.Repeat([]byte{0x80}, n), bytes.Repeat([]byte{0x80}, n)},
			{bytes.Repeat([]byte{0x80}, n), bytes.Repeat([]byte{0x7f}, n)}} {
			want := int32(0)
			for i := range pair[0] {
				want += int32(int8(pair[0][i])) * int32(int8(pair[1][i]))
			}
			if got := dotInt8(pair[0], pair[1]); got != want {
				t.Errorf("dotInt8 of %d values = %d, want %d (AVX2 %v)", n, got, want, useAVX2)
			}
		}
	}
}
