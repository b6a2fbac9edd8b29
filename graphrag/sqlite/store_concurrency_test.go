package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestTwoStoresWriteOneFile has two Store values, as two processes would, write the same file in
// parallel: busy_timeout and the write retry must absorb the lock contention, and the file must stay
// whole.
func TestTwoStoresWriteOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	stores := []*Store{openTemp(t, path, 4), openTemp(t, path, 4)}
	const perWriter = 10
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	for w := range 4 {
		s := stores[w%2]
		wg.Go(func() {
			for i := range perWriter {
				if err := writeOne(t.Context(), s, fmt.Sprintf("w%d-%d", w, i)); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("parallel writers: %v", err)
	}
	st, err := stores[0].Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := graphrag.Stats{Documents: 4 * perWriter, Chunks: 4 * perWriter, Embedded: 4 * perWriter,
		Entities: 1 + 4*perWriter, Mentions: 2 * 4 * perWriter}
	if st != want {
		t.Errorf("Stats = %+v, want %+v", st, want)
	}
	checkIntegrity(t, stores[1].writer)
}

// writeOne stores a document with one embedded chunk naming Munich and an entity of its own.
func writeOne(ctx context.Context, s *Store, name string) error {
	src := []byte(name)
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: name}
	if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
		return err
	}
	id := graphrag.ChunkID(doc.ID, 0)
	if err := s.PutChunks(ctx, doc.ID, []graphrag.Chunk{{ID: id, Text: "Munich and " + name}}); err != nil {
		return err
	}
	if err := s.SetEmbeddings(ctx, map[string][]float32{id: {1, 2, 3, 4}}); err != nil {
		return err
	}
	return s.PutExtraction(ctx, graphrag.Extraction{ChunkID: id, Entities: []graphrag.Entity{
		{Key: "munich", Name: "Munich"}, {Key: name, Name: name},
	}})
}

// checkIntegrity fails the test unless SQLite finds the file whole, every foreign key satisfied and the
// full-text indexes in step with their tables.
func checkIntegrity(t *testing.T, db *sql.DB) {
	t.Helper()
	var result string
	if err := db.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&result); err != nil || result != "ok" {
		t.Errorf("integrity_check = %q, %v; want ok", result, err)
	}
	rows, err := db.QueryContext(t.Context(), "PRAGMA foreign_key_check")
	if err != nil {
		t.Fatalf("foreign_key_check: %v", err)
	}
	defer rows.Close()
	if rows.Next() {
		t.Error("foreign_key_check found violations")
	}
	// For external-content tables, FTS5's integrity-check compares the index with the content table.
	for _, fts := range []string{"chunks_fts", "entities_fts"} {
		if _, err := db.ExecContext(t.Context(), `INSERT INTO `+fts+`(`+fts+`, rank) VALUES ('integrity-check', 1)`); err != nil {
			t.Errorf("%s integrity-check: %v", fts, err)
		}
	}
}

func TestParallelReadersAndWriter(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	fill(t, s, "seed.txt")
	ctx := t.Context()
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	wg.Go(func() {
		for i := range 20 {
			if err := writeOne(ctx, s, fmt.Sprintf("doc-%d", i)); err != nil {
				errc <- err
				return
			}
		}
	})
	for range 4 {
		wg.Go(func() {
			for range 30 {
				if _, err := s.SearchText(ctx, "Munich", 5); err != nil {
					errc <- err
					return
				}
				if _, err := s.SearchVector(ctx, []float32{1, 0, 0, 0}, 5); err != nil {
					errc <- err
					return
				}
				if _, err := s.Documents(ctx); err != nil {
					errc <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	checkIntegrity(t, s.writer)
}
