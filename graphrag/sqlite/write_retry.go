package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// writeAttempts bounds how often a write transaction is tried when the file stays locked past the busy
// timeout (another process writing, a long checkpoint).
const writeAttempts = 4

// write runs fn in one write transaction and commits it, trying again from the start when SQLite reports
// the file busy or locked. fn must therefore only touch the transaction, never state outside it. Once the
// check in the background found the file damaged, every write is refused (store_clean.go).
func (s *Store) write(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	if err := s.writesRefused(); err != nil {
		return err
	}
	var err error
	for attempt := 1; ; attempt++ {
		err = s.writeOnce(ctx, fn)
		s.noteWrite(err)
		if err == nil || !isBusy(err) || attempt == writeAttempts {
			return err
		}
		wait := time.Duration(attempt*attempt)*50*time.Millisecond + rand.N(50*time.Millisecond)
		s.logger.Warn("sqlite write busy, trying again", "op", op, "attempt", attempt, "wait", wait, "err", err)
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(wait):
		}
	}
}

func (s *Store) writeOnce(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// isBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY) or a table lock
// (SQLITE_LOCKED), both of which pass once the other writer finishes.
func isBusy(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		primary := coded.Code() & 0xff
		return primary == sqlite3.SQLITE_BUSY || primary == sqlite3.SQLITE_LOCKED
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY")
}
