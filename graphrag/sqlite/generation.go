package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// metaGeneration is the key of the meta table that counts the commits of DeleteDocument, ReplaceDocument
// and CommitReextract (graphrag.DocumentStore.Generation). It lives in the file, written by the commit's
// own transaction, so that a process reading the file sees the commits of another (`hopwise reindex
// --graph` while `hopwise serve` answers) as soon as it could see their writes: a WAL read sees a
// transaction whole or not at all, and a read that saw a commit's writes started after it, so the
// Generation read after it does too.
const metaGeneration = "generation"

// generation holds this Store's readers of the count off while one of its deletes or replaces commits and
// swaps its in-memory vectors (mu exclusive from before the transaction until the swap is done, shared by
// Generation): a reader can never read the count of before a commit after searching the vectors it left.
type generation struct {
	mu sync.RWMutex
}

// Generation returns the number of deletes, replaces and re-extraction commits the file has recorded,
// waiting while one of this Store's commits.
func (s *Store) Generation(ctx context.Context) (uint64, error) {
	s.gen.mu.RLock()
	defer s.gen.mu.RUnlock()
	var n int64
	err := s.reader.QueryRowContext(ctx, `SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?), 0)`,
		metaGeneration).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: generation: %w", err)
	}
	return uint64(max(n, 0)), nil
}

// changing holds readers of Generation off until the returned func is called, after a delete or replace
// committed (or failed) and its in-memory vectors were changed.
func (s *Store) changing() (done func()) {
	s.gen.mu.Lock()
	return s.gen.mu.Unlock
}

// countChange adds the commit of tx to the generation.
func countChange(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, metaGeneration)
	if err != nil {
		return fmt.Errorf("count the change: %w", err)
	}
	return nil
}
