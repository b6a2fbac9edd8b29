package sqlite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestOpenWithTheRecordedDimension: EmbedDim 0 opens a file with the dimension it was built with (commands
// that only read need no embedding model to learn it), and neither creates a missing file nor opens one
// that never recorded a dimension.
func TestOpenWithTheRecordedDimension(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := Open(t.Context(), missing, Options{}, nil); !errors.Is(err, graphrag.ErrNoDimension) {
		t.Fatalf("Open of a missing file with no dimension: %v, want ErrNoDimension", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing file was created: %v", err)
	}

	path := filepath.Join(dir, "hopwise.db")
	first := openTemp(t, path, 4)
	ids := fill(t, first, "eu261.txt")
	first.Close()
	s, err := Open(t.Context(), path, Options{EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatalf("Open with the recorded dimension: %v", err)
	}
	defer s.Close()
	if s.embedDim() != 4 || s.vectors.len() != 2 {
		t.Errorf("opened with dimension %d and %d vectors, want 4 and 2", s.embedDim(), s.vectors.len())
	}
	hits, err := s.SearchVector(t.Context(), []float32{0, 1, 0, 0}, 1)
	if err != nil || len(hits) != 1 || hits[0].ID != ids[1] {
		t.Errorf("SearchVector = %+v, %v; want %s", hits, err, ids[1])
	}

	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), empty, Options{}, nil); !errors.Is(err, ErrEmptyFile) {
		t.Errorf("Open of an empty file with no dimension: %v, want ErrEmptyFile (the refusal comes first)", err)
	}
}
