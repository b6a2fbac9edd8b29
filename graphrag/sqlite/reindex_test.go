package sqlite

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestReembedByAnotherProcessStopsOldWrites: two Stores on one file, as `hopwise reindex` beside a running
// `hopwise serve`. Once the first commits a re-embedding to dimension 2, the second (still at 4) cannot
// write a vector of its old dimension into the file: it is told to restart, and the file reopens with
// every vector of the new dimension.
func TestReembedByAnotherProcessStopsOldWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	a, b := openTemp(t, path, 4), openTemp(t, path, 4)
	ids := fill(t, a, "a.txt")
	if err := a.BeginReembed(t.Context(), graphrag.EmbeddingSpace{Model: "new", Dim: 2}); err != nil {
		t.Fatal(err)
	}
	if err := a.StageEmbeddings(t.Context(), map[string][]float32{ids[0]: {1, 0}, ids[1]: {0, 1}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := a.CommitReembed(t.Context()); err != nil {
		t.Fatal(err)
	}
	err := b.SetEmbeddings(t.Context(), map[string][]float32{ids[0]: {1, 0, 0, 0}})
	if !errors.Is(err, graphrag.ErrDimension) || !strings.Contains(err.Error(), "restart") {
		t.Errorf("SetEmbeddings of the old dimension from the other Store = %v, want ErrDimension saying to restart", err)
	}
	x := graphrag.Extraction{ChunkID: ids[1], Entities: []graphrag.Entity{{Key: "delhi", Name: "Delhi", Type: "CITY"}}}
	if err := b.PutExtraction(t.Context(), x); !errors.Is(err, graphrag.ErrDimension) {
		t.Errorf("PutExtraction from the other Store = %v, want ErrDimension", err)
	}
	a.Close()
	b.Close()
	s, err := Open(t.Context(), path, Options{}, nil)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if got := s.EmbeddingSpace(); got != (graphrag.EmbeddingSpace{Model: "new", Dim: 2}) {
		t.Errorf("reopened with %+v", got)
	}
	if found, err := s.SearchVector(t.Context(), []float32{0, 1}, 2); err != nil || len(found) != 2 || found[0].ID != ids[1] {
		t.Errorf("SearchVector after reopening = %v, %v; want %s first", found, err, ids[1])
	}
}
