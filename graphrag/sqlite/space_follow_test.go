package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// TestFollowSpaceSearchesAnotherProcessesReembed: two Stores on one file, as `hopwise reindex` beside a
// running `hopwise serve`. Once the first commits a re-embedding to dimension 2, the second, following
// the file, searches the new vectors (its own copy was of dimension 4), writes vectors and extractions of
// the new space again, and still answers a query of the old dimension for a while.
func TestFollowSpaceSearchesAnotherProcessesReembed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	a := openTemp(t, path, 4)
	ids := fill(t, a, "a.txt")
	b := openTemp(t, path, 4) // the server, opened with what the file holds
	if found, err := b.SearchVector(t.Context(), []float32{0, 1, 0, 0}, 1); err != nil || len(found) != 1 || found[0].ID != ids[1] {
		t.Fatalf("SearchVector before = %v, %v", found, err)
	}
	if err := a.BeginReembed(t.Context(), graphrag.EmbeddingSpace{Model: "new", Dim: 2}); err != nil {
		t.Fatal(err)
	}
	// The new space reverses the passages: the first is now along the second axis.
	if err := a.StageEmbeddings(t.Context(), map[string][]float32{ids[0]: {0, 1}, ids[1]: {1, 0}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.followSpace(t.Context()); err != nil || b.EmbeddingSpace().Dim != 4 {
		t.Fatalf("followSpace before the commit = %v, space %+v; want nothing changed", err, b.EmbeddingSpace())
	}
	if err := a.CommitReembed(t.Context()); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); b.FollowSpace(ctx, 20*time.Millisecond) }()
	deadline := time.Now().Add(5 * time.Second)
	for b.EmbeddingSpace().Dim != 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if got := b.EmbeddingSpace(); got != (graphrag.EmbeddingSpace{Model: "new", Dim: 2}) {
		t.Fatalf("the following Store's space = %+v, want new of 2 dimensions", got)
	}
	if found, err := b.SearchVector(t.Context(), []float32{0, 1}, 1); err != nil || len(found) != 1 || found[0].ID != ids[0] {
		t.Errorf("SearchVector in the new space = %v, %v; want %s, nearest there", found, err, ids[0])
	}
	if found, err := b.SearchVector(t.Context(), []float32{0, 1, 0, 0}, 1); err != nil || len(found) != 1 {
		t.Errorf("SearchVector of the old dimension just after = %v, %v; want the old vectors still answering", found, err)
	}
	if err := b.SetEmbeddings(t.Context(), map[string][]float32{ids[1]: {1, 0}}); err != nil {
		t.Errorf("SetEmbeddings in the new space from the following Store = %v", err)
	}
	x := graphrag.Extraction{ChunkID: ids[1], Entities: []graphrag.Entity{{Key: "delhi", Name: "Delhi", Type: "CITY"}}}
	if err := b.PutExtraction(t.Context(), x); err != nil {
		t.Errorf("PutExtraction from the following Store = %v", err)
	}
}
