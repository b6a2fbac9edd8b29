package neo4j

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestSearchVectorScoresExactly checks that vector search scores each chunk it returns by the exact cosine
// of its vector with the query, not by the index's quantized codes (which are off by thousandths and
// reorder close hits), and ranks by that score: the order the embedded store gives, which fusion reads
// 20 deep.
func TestSearchVectorScoresExactly(t *testing.T) {
	const dim, n, k = 64, 400, 20
	s := openTest(t, dim)
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("passage %d", i)
	}
	_, chunks := putDoc(t, s, "vectors", texts...)
	r := rand.New(rand.NewPCG(13, 7))
	vecs := make(map[string][]float32, n)
	for _, c := range chunks {
		vecs[c.ID] = randomVector(r, dim)
	}
	if err := s.SetEmbeddings(t.Context(), vecs); err != nil {
		t.Fatal(err)
	}
	for q := range 8 {
		// a stored vector moved a little, so that many chunks score close to one another
		query := slices.Clone(vecs[chunks[q*37].ID])
		for i, x := range randomVector(r, dim) {
			query[i] += 0.7 * x
		}
		found, err := s.SearchVector(t.Context(), query, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != k {
			t.Fatalf("query %d: %d chunks found, want %d", q, len(found), k)
		}
		for i, f := range found {
			if want := exactCosine(vecs[f.ID], query); math.Abs(f.Score-want) > 1e-6 {
				t.Errorf("query %d, rank %d (%s): score %.9f, the exact cosine %.9f", q, f.Rank, f.ID, f.Score, want)
			}
			if i > 0 && f.Score > found[i-1].Score {
				t.Errorf("query %d: rank %d scores %.9f, above rank %d's %.9f", q, f.Rank, f.Score, i, found[i-1].Score)
			}
		}
		best := ""
		for id, v := range vecs {
			if best == "" || exactCosine(v, query) > exactCosine(vecs[best], query) {
				best = id
			}
		}
		if found[0].ID != best {
			t.Errorf("query %d: first %s, the exact nearest is %s", q, found[0].ID, best)
		}
	}
}

// exactCosine is the cosine of v and a query in float64 (the top 20 of these queries are all positive,
// which BestCosine keeps as they are).
func exactCosine(v, query []float32) float64 { return graphrag.BestCosine(v, [][]float32{query}) }
