package sqlite

import (
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// fill stores one document with two embedded, extracted chunks and returns its chunk IDs.
func fill(t *testing.T, s *Store, name string) []string {
	t.Helper()
	ctx := t.Context()
	src := []byte("content of " + name)
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: name}
	if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
		t.Fatalf("PutDocument: %v", err)
	}
	chunks := []graphrag.Chunk{
		{ID: graphrag.ChunkID(doc.ID, 0), Ordinal: 0, Text: name + ": Munich to Delhi is 5,921 km."},
		{ID: graphrag.ChunkID(doc.ID, 1), Ordinal: 1, Text: name + ": compensation is 600 EUR over 3,500 km."},
	}
	if err := s.PutChunks(ctx, doc.ID, chunks); err != nil {
		t.Fatalf("PutChunks: %v", err)
	}
	v0, v1 := make([]float32, s.embedDim()), make([]float32, s.embedDim())
	v0[0], v1[1] = 1, 1
	if err := s.SetEmbeddings(ctx, map[string][]float32{chunks[0].ID: v0, chunks[1].ID: v1}); err != nil {
		t.Fatalf("SetEmbeddings: %v", err)
	}
	munich := graphrag.Entity{Key: "munich", Name: "Munich"}
	delhi := graphrag.Entity{Key: "delhi", Name: "Delhi"}
	x := graphrag.Extraction{ChunkID: chunks[0].ID, Entities: []graphrag.Entity{munich, delhi},
		Relations: []graphrag.Relation{{ID: graphrag.RelationID("delhi", "DISTANCE_FROM", "munich"), Source: "delhi", Target: "munich", Type: "DISTANCE_FROM", Values: map[string]any{"distance_km": 5921}}}}
	if err := s.PutExtraction(ctx, x); err != nil {
		t.Fatalf("PutExtraction: %v", err)
	}
	return []string{chunks[0].ID, chunks[1].ID}
}

func TestReopenFindsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s, err := Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	ids := fill(t, s, "eu261.txt")
	before, err := s.Stats(t.Context())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s = openTemp(t, path, 4)
	if s.vectors.len() != 2 {
		t.Errorf("vectors in memory after reopen = %d, want 2", s.vectors.len())
	}
	after, err := s.Stats(t.Context())
	if err != nil || after != before {
		t.Errorf("Stats after reopen = %+v, %v; want %+v", after, err, before)
	}
	hits, err := s.SearchVector(t.Context(), []float32{0, 1, 0, 0}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != ids[1] {
		t.Errorf("SearchVector after reopen = %+v, %v; want %s", hits, err, ids[1])
	}
	text, err := s.SearchText(t.Context(), "compensation", 5)
	if err != nil || len(text) != 1 || text[0].ID != ids[1] {
		t.Errorf("SearchText after reopen = %+v, %v; want %s", text, err, ids[1])
	}
	edges, err := s.Neighborhood(t.Context(), []string{"munich"}, 1, 5)
	if err != nil || len(edges) != 1 || edges[0].SourceName != "Delhi" {
		t.Errorf("Neighborhood after reopen = %+v, %v; want Delhi -> Munich", edges, err)
	}
}

func TestReopenWithOtherEmbeddingFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	first := openTemp(t, path, 4)
	fill(t, first, "a.txt")
	tests := []struct {
		name     string
		opt      Options
		mentions []string
	}{
		{"other dimension", Options{EmbedDim: 8, EmbedModel: "test-embed"}, []string{"dimension 4", "dimension 8", "test-embed"}},
		{"other model", Options{EmbedDim: 4, EmbedModel: "other-embed"}, []string{`"test-embed"`, `"other-embed"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), path, tc.opt, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded, want a refusal")
			}
			if !errors.Is(err, graphrag.ErrDimension) {
				t.Errorf("error %v does not wrap ErrDimension", err)
			}
			for _, m := range append(tc.mentions, "run `hopwise reindex --embeddings`") {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
		})
	}
	again := openTemp(t, path, 4)
	if n := again.vectors.len(); n != 2 {
		t.Errorf("the same settings reopen with %d vectors, want 2", n)
	}
}

func TestPragmas(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	for _, db := range []struct {
		name string
		q    queryer
	}{{"writer", s.writer}, {"reader", s.reader}} {
		var mode string
		var fk, timeout int
		row := func(pragma string, dest any) {
			rows, err := db.q.QueryContext(t.Context(), "PRAGMA "+pragma)
			if err != nil {
				t.Fatalf("%s PRAGMA %s: %v", db.name, pragma, err)
			}
			defer rows.Close()
			if !rows.Next() {
				t.Fatalf("%s PRAGMA %s: no row", db.name, pragma)
			}
			if err := rows.Scan(dest); err != nil {
				t.Fatalf("%s PRAGMA %s: %v", db.name, pragma, err)
			}
		}
		row("journal_mode", &mode)
		row("foreign_keys", &fk)
		row("busy_timeout", &timeout)
		if mode != "wal" || fk != 1 || timeout != busyTimeoutMS {
			t.Errorf("%s: journal_mode %q foreign_keys %d busy_timeout %d, want wal 1 %d", db.name, mode, fk, timeout, busyTimeoutMS)
		}
	}
	if _, err := s.reader.ExecContext(t.Context(), `DELETE FROM documents`); err == nil {
		t.Error("the reader pool could write")
	}
}

// TestDeleteDropsVectorsFromMemory also checks that the cascade kept the full-text indexes exact.
func TestDeleteDropsVectorsFromMemory(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	fill(t, s, "a.txt")
	ids := fill(t, s, "b.txt")
	if n := s.vectors.len(); n != 4 {
		t.Fatalf("vectors = %d, want 4", n)
	}
	if err := s.DeleteDocument(t.Context(), strings.TrimSuffix(ids[0], "-0000")); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	if n := s.vectors.len(); n != 2 {
		t.Errorf("vectors after delete = %d, want 2", n)
	}
	checkIntegrity(t, s.writer)
	live, err := queryInts(t.Context(), s.reader, `SELECT seq FROM chunks`)
	if err != nil {
		t.Fatal(err)
	}
	s.vectors.mu.RLock()
	defer s.vectors.mu.RUnlock()
	for _, seq := range s.vectors.seqs {
		if !slices.Contains(live, seq) {
			t.Errorf("deleted chunk %d still in memory (live: %v)", seq, live)
		}
	}
}
