package neo4j

import (
	"context"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// TestFollowSpaceSearchesAnotherProcessesReembed: two Stores on one database, as `hopwise reindex` beside
// a running `hopwise serve`. Once the first commits a re-embedding to dimension 2, the second, following
// the Meta node, searches the new slot, writes vectors and extractions of the new space again, and still
// answers a query of the old dimension for a while.
func TestFollowSpaceSearchesAnotherProcessesReembed(t *testing.T) {
	a, b := twoStoresReembedding(t)
	ctx := t.Context()
	if err := b.followSpace(ctx); err != nil || b.EmbeddingSpace().Dim != 4 {
		t.Fatalf("followSpace before the commit = %v, space %+v; want nothing changed", err, b.EmbeddingSpace())
	}
	if err := a.CommitReembed(ctx); err != nil {
		t.Fatal(err)
	}

	followCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); b.FollowSpace(followCtx, 20*time.Millisecond) }()
	deadline := time.Now().Add(5 * time.Second)
	for b.EmbeddingSpace().Dim != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if got := b.EmbeddingSpace(); got != (graphrag.EmbeddingSpace{Model: "new", Dim: 2}) {
		t.Fatalf("the following Store's space = %+v, want new of 2 dimensions", got)
	}
	if found, err := b.SearchVector(ctx, []float32{0, 1}, 1); err != nil || len(found) != 1 || found[0].ID != "da-0001" {
		t.Errorf("SearchVector in the new space = %v, %v; want da-0001, nearest there", found, err)
	}
	if found, err := b.SearchVector(ctx, []float32{0, 1, 0, 0}, 1); err != nil || len(found) != 1 {
		t.Errorf("SearchVector of the old dimension just after = %v, %v; want the old slot still answering", found, err)
	}
	if err := b.SetEmbeddings(ctx, map[string][]float32{"da-0001": {1, 0}}); err != nil {
		t.Errorf("SetEmbeddings in the new space from the following Store = %v", err)
	}
	x := graphrag.Extraction{ChunkID: "da-0001", Entities: []graphrag.Entity{{Key: "delhi", Name: "Delhi", Type: "CITY"}}}
	if err := b.PutExtraction(ctx, x); err != nil {
		t.Errorf("PutExtraction from the following Store = %v", err)
	}
}
