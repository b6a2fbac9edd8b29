package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// metaGeneration is the key of the meta table that counts the commits of DeleteDocument, ReplaceDocument
// and CommitReextract (graphrag.DocumentStore.Generation). It lives in the file, written by the commit's
// own transaction, so that a process reading the file sees the commits of another (`hopwise reindex
// --graph` while `hopwise serve` answers) as soon as it could see their writes: a WAL read sees a
// transaction whole or not at all, and a read that saw a commit's writes started after it, so the
// Generation read after it does too.
const metaGeneration = "generation"

// Generation returns the number of deletes, replaces, re-extraction and re-embedding commits the file has recorded,
// waiting while one of this Store's commits.
func (s *Store) Generation(ctx context.Context) (uint64, error) {
	return s.gen.Read(ctx, s.generation)
}

// generation reads the count, inside the gate (s.gen).
func (s *Store) generation(ctx context.Context) (uint64, error) {
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
func (s *Store) changing() (done func()) { return s.gen.Changing() }

// countChange adds the commit of tx to the generation.
func countChange(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`, metaGeneration)
	if err != nil {
		return fmt.Errorf("count the change: %w", err)
	}
	return nil
}

// HoldCommits holds this Store's deletes, replaces, re-extraction and re-embedding commits off until release is called
// (graphrag.CommitHolder), once the one running, if any, is done.
func (s *Store) HoldCommits(ctx context.Context) (uint64, func() (uint64, error), error) {
	return s.gen.Hold(ctx, s.generation)
}
