package evaltest

import (
	"context"
	"sort"

	"github.com/hopwise/hopwise/rerank"
)

// Reranker is a scripted reranker: a passage scores the share of the query's terms it contains.
type Reranker struct{}

var _ rerank.Reranker = Reranker{}

// Rerank scores every document, best first; ties keep the given order.
func (Reranker) Rerank(_ context.Context, query string, docs []string) ([]rerank.Score, error) {
	qt := terms(query)
	out := make([]rerank.Score, len(docs))
	for i, d := range docs {
		out[i] = rerank.Score{Index: i}
		if len(qt) > 0 {
			out[i].Score = float64(len(covered(qt, d))) / float64(len(qt))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}
