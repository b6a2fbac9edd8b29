package neo4j

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestReembedByAnotherProcessStopsOldWrites: two Stores on one database, as `hopwise reindex` beside a
// running `hopwise serve`. Once the first commits a re-embedding to dimension 2, the second (still at 4,
// reading the old slot) cannot write a vector or an extraction: it is told to restart; a Store opened
// afterwards searches the new vectors, and the old slot's index is gone.
func TestReembedByAnotherProcessStopsOldWrites(t *testing.T) {
	a, b := twoStoresReembedding(t)
	ctx := t.Context()
	if err := a.CommitReembed(ctx); err != nil {
		t.Fatal(err)
	}
	err := b.SetEmbeddings(ctx, map[string][]float32{"da-0000": {1, 0, 0, 0}})
	if !errors.Is(err, graphrag.ErrDimension) || !strings.Contains(err.Error(), "restart") {
		t.Errorf("SetEmbeddings of the old dimension from the other Store = %v, want ErrDimension saying to restart", err)
	}
	x := graphrag.Extraction{ChunkID: "da-0001", Entities: []graphrag.Entity{{Key: "delhi", Name: "Delhi", Type: "CITY"}}}
	if err := b.PutExtraction(ctx, x); !errors.Is(err, graphrag.ErrDimension) {
		t.Errorf("PutExtraction from the other Store = %v, want ErrDimension", err)
	}
	c := openOn(t, testURI(t), 0, "")
	if got := c.EmbeddingSpace(); got != (graphrag.EmbeddingSpace{Model: "new", Dim: 2}) {
		t.Errorf("a Store opened after the commit has %+v", got)
	}
	if found, err := c.SearchVector(ctx, []float32{0, 1}, 2); err != nil || len(found) != 2 || found[0].ID != "da-0001" {
		t.Errorf("SearchVector after the commit = %v, %v; want da-0001 first", found, err)
	}
	var left int
	err = c.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `SHOW VECTOR INDEXES YIELD name WHERE name = $name RETURN count(*)`, map[string]any{"name": slotIndex[0]})
		left = asInt(first(records))
		return err
	})
	if err != nil || left != 0 {
		t.Errorf("the old slot's index after a new Open: %d, %v; want it dropped", left, err)
	}
}

// twoStoresReembedding opens two Stores on one database at dimension 4, as `hopwise reindex` beside a
// running `hopwise serve`: through the first, two passages along the first two axes and a re-embedding to
// "new" of dimension 2 begun and staged (the same axes), not committed.
func twoStoresReembedding(t *testing.T) (a, b *Store) {
	a = openTest(t, 4)
	b = openOn(t, testURI(t), 4, testModel)
	ctx := t.Context()
	doc := graphrag.Document{ID: "da", Name: "a.txt", Hash: "a", Status: graphrag.StatusQueued}
	if _, _, err := a.PutDocument(ctx, doc, []byte("a")); err != nil {
		t.Fatal(err)
	}
	chunks := []graphrag.Chunk{{ID: "da-0000", DocID: "da", Text: "Munich"}, {ID: "da-0001", DocID: "da", Ordinal: 1, Text: "Delhi"}}
	if err := a.PutChunks(ctx, "da", chunks); err != nil {
		t.Fatal(err)
	}
	if err := a.SetEmbeddings(ctx, map[string][]float32{"da-0000": {1, 0, 0, 0}, "da-0001": {0, 1, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if err := a.BeginReembed(ctx, graphrag.EmbeddingSpace{Model: "new", Dim: 2}); err != nil {
		t.Fatal(err)
	}
	if err := a.StageEmbeddings(ctx, map[string][]float32{"da-0000": {1, 0}, "da-0001": {0, 1}}, nil); err != nil {
		t.Fatal(err)
	}
	return a, b
}
