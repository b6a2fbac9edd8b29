package graphragtest

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// NotReembedded lists the passages of store that a search by their own text's vector of dimension dim,
// as llmtest's model gives it, does not find first (a passage of the same text first is as good): after
// a re-embedding by llmtest's model at dim it is empty. It also fails when the store has no passage.
func NotReembedded(ctx context.Context, store graphrag.Store, dim int) ([]string, error) {
	docs, err := store.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var missing []string
	n := 0
	for _, d := range docs {
		chunks, err := store.DocumentChunks(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			n++
			found, err := store.SearchVector(ctx, llmtest.Vector(c.Text, dim), 10)
			if err != nil {
				return nil, err
			}
			if len(found) == 0 || found[0].ID != c.ID && found[0].Score < 0.9999 {
				missing = append(missing, c.ID)
			}
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("graphragtest: the store holds no passage")
	}
	return missing, nil
}
