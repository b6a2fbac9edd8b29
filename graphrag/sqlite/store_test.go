package sqlite

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/storetest"
)

func TestStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, dim int) graphrag.Store {
		s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), dim)
		t.Cleanup(func() { checkGraphCounts(t, s) }) // before openTemp's Close
		return s
	})
}

// openTemp opens a store at path, closed when the test ends.
func openTemp(t testing.TB, path string, dim int) *Store {
	t.Helper()
	s, err := Open(t.Context(), path, Options{EmbedDim: dim, EmbedModel: "test-embed"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}
