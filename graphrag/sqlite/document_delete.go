package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// DeleteDocument removes a document with its source, chunks, vectors, full-text entries and mentions
// (foreign-key cascades and triggers), then the relations and entities it alone supported. Relations and
// entities another document supports keep only that document's chunks; aliases stay. Deleting an unknown
// document does nothing. On a full disk the space reserve is released and the delete tried again, so a
// person can always free room by deleting; the log is then checkpointed into the file, whose freed pages
// later writes reuse.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	chunkSeqs, err := s.deleteDocument(ctx, id)
	if isFull(err) && s.releaseReserve() {
		chunkSeqs, err = s.deleteDocument(ctx, id)
		if err == nil {
			if _, cerr := s.writer.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); cerr != nil {
				s.logger.Warn("sqlite: checkpoint after a delete on a full disk", "err", cerr)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("sqlite: delete document %s: %w", id, err)
	}
	s.vectors.remove(chunkSeqs)
	s.logger.Debug("sqlite document deleted", "doc", id, "chunks", len(chunkSeqs))
	s.keepReserve()
	return nil
}

func (s *Store) deleteDocument(ctx context.Context, id string) ([]int64, error) {
	var chunkSeqs []int64
	var before, after int64
	err := s.write(ctx, "delete document", func(tx *sql.Tx) error {
		var err error
		if before, err = changeCount(ctx, tx); err != nil {
			return err
		}
		if chunkSeqs, err = deleteDocumentTx(ctx, tx, id); err != nil {
			return err
		}
		if err := countChange(ctx, tx); err != nil {
			return err
		}
		after, err = changeCount(ctx, tx)
		return err
	})
	if err == nil {
		s.vectors.track(before, after)
	}
	return chunkSeqs, err
}

// deleteDocumentTx deletes a document and what only it supports in tx and returns its chunks' seqs.
func deleteDocumentTx(ctx context.Context, tx *sql.Tx, id string) ([]int64, error) {
	chunkSeqs, err := queryInts(ctx, tx, `SELECT seq FROM chunks WHERE doc_id = ?`, id)
	if err != nil {
		return nil, err
	}
	entityKeys, err := queryStrings(ctx, tx, `SELECT DISTINCT m.entity_key FROM mentions m
		JOIN chunks c ON c.id = m.chunk_id WHERE c.doc_id = ?`, id)
	if err != nil {
		return nil, err
	}
	relationIDs, err := queryStrings(ctx, tx, `SELECT DISTINCT rc.relation_id FROM relation_chunks rc
		JOIN chunks c ON c.id = rc.chunk_id WHERE c.doc_id = ?`, id)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ?`, id); err != nil {
		return nil, err
	}
	err = execBatches(ctx, tx, `DELETE FROM relations WHERE id IN (%s)
		AND NOT EXISTS (SELECT 1 FROM relation_chunks rc WHERE rc.relation_id = relations.id)`, relationIDs)
	if err != nil {
		return nil, err
	}
	err = execBatches(ctx, tx, `DELETE FROM entities WHERE key IN (%s)
		AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_key = entities.key)`, entityKeys)
	return chunkSeqs, err
}

// queryer is what *sql.DB and *sql.Tx share for reads.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// queryStrings returns the first column of every row.
func queryStrings(ctx context.Context, q queryer, query string, args ...any) ([]string, error) {
	return queryColumn[string](ctx, q, query, args...)
}

// batchSize bounds the parameters of one IN list, well under SQLite's variable limit.
const batchSize = 500

// execBatches runs query, whose %s is an IN list, over values in batches.
func execBatches(ctx context.Context, tx *sql.Tx, query string, values []string) error {
	for lo := 0; lo < len(values); lo += batchSize {
		part := values[lo:min(lo+batchSize, len(values))]
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(query, placeholders(len(part))), stringArgs(part)...); err != nil {
			return err
		}
	}
	return nil
}

// placeholders is "?, ?, ..." with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

func stringArgs(values []string) []any {
	args := make([]any, len(values))
	for i, v := range values {
		args[i] = v
	}
	return args
}
