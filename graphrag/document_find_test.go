package graphrag_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
)

func TestFindDocument(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"),
		sqlite.Options{EmbedDim: 8, EmbedModel: "test-embed"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	put := func(name, body string) graphrag.Document {
		t.Helper()
		hash := graphrag.ContentHash([]byte(body))
		doc, _, err := store.PutDocument(ctx, graphrag.Document{ID: graphrag.DocumentID(hash), Name: name,
			Hash: hash, Size: int64(len(body)), Status: graphrag.StatusQueued}, []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	handbook := put("handbook.md", "the handbook")
	put("notes.txt", "first notes")
	put("notes.txt", "second notes, other bytes under the same name")
	upper := put("Travel Policy.md", "the travel policy")

	tests := []struct {
		name      string
		idOrName  string
		wantID    string
		wantErr   error
		wantInErr string
	}{
		{name: "by ID", idOrName: handbook.ID, wantID: handbook.ID},
		{name: "by name", idOrName: "handbook.md", wantID: handbook.ID},
		{name: "by name with spaces around", idOrName: "  handbook.md\n", wantID: handbook.ID},
		{name: "by name ignoring case", idOrName: "travel policy.MD", wantID: upper.ID},
		{name: "ambiguous name", idOrName: "notes.txt", wantErr: graphrag.ErrAmbiguous, wantInErr: `2 documents are named "notes.txt"`},
		{name: "unknown", idOrName: "missing.md", wantErr: graphrag.ErrNotFound, wantInErr: `"missing.md"`},
		{name: "empty", idOrName: " ", wantErr: graphrag.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := graphrag.FindDocument(ctx, store, tc.idOrName)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("FindDocument(%q) error = %v, want %v", tc.idOrName, err, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantInErr) {
					t.Fatalf("error %q does not say %q", err, tc.wantInErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FindDocument(%q): %v", tc.idOrName, err)
			}
			if doc.ID != tc.wantID {
				t.Fatalf("FindDocument(%q) = %s, want %s", tc.idOrName, doc.ID, tc.wantID)
			}
		})
	}

	var amb *graphrag.AmbiguousError
	_, err = graphrag.FindDocument(ctx, store, "notes.txt")
	if !errors.As(err, &amb) || len(amb.Matches) != 2 {
		t.Fatalf("ambiguous error = %#v, want an *AmbiguousError with 2 matches", err)
	}
	for _, d := range amb.Matches {
		if !strings.Contains(err.Error(), d.ID) {
			t.Errorf("error %q does not list ID %s", err, d.ID)
		}
	}
}
