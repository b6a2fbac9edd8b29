package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestGenerationSeesAnotherProcessesCommits: two Stores on one file, as `hopwise reindex --graph` beside a
// running `hopwise serve`. The commits of the first (a re-extraction of the graph, a delete) change the
// generation the second reads, so a retrieval pass of the server that straddles one is made again; the
// staging before the commit does not.
func TestGenerationSeesAnotherProcessesCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	a := openTemp(t, path, 4)
	fill(t, a, "a.txt")
	docs, err := a.Documents(t.Context())
	if err != nil || len(docs) != 1 {
		t.Fatalf("Documents = %v, %v", docs, err)
	}
	if err := a.SetDocumentStatus(t.Context(), docs[0].ID, graphrag.StatusDone, "", graphrag.DocumentMeta{}); err != nil {
		t.Fatal(err)
	}
	b := openTemp(t, path, 4) // the server
	gen := func(when string) uint64 {
		t.Helper()
		g, err := b.Generation(t.Context())
		if err != nil {
			t.Fatalf("Generation %s: %v", when, err)
		}
		return g
	}
	g0 := gen("before")
	if err := a.BeginReextract(t.Context(), "model-2", a.EmbeddingSpace()); err != nil {
		t.Fatal(err)
	}
	todo, err := a.ReextractTodo(t.Context(), 10)
	if err != nil || len(todo) == 0 {
		t.Fatalf("ReextractTodo = %d passages, %v", len(todo), err)
	}
	for _, c := range todo {
		if err := a.StageReextraction(t.Context(), graphrag.Extraction{ChunkID: c.ID}, true); err != nil {
			t.Fatal(err)
		}
	}
	if g := gen("while staged"); g != g0 {
		t.Errorf("the server's Generation while another process stages a re-extraction = %d, want %d", g, g0)
	}
	if err := a.CommitReextract(t.Context()); err != nil {
		t.Fatal(err)
	}
	g1 := gen("after the re-extraction")
	if g1 == g0 {
		t.Errorf("the server's Generation after another process committed a re-extraction = %d, as before", g1)
	}
	if err := a.DeleteDocument(t.Context(), docs[0].ID); err != nil {
		t.Fatal(err)
	}
	if g := gen("after the delete"); g == g1 || g == g0 {
		t.Errorf("the server's Generation after another process deleted a document = %d, want another than %d and %d", g, g0, g1)
	}
}
