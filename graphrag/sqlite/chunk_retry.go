package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// RetryFailedChunks returns a document's failed chunks to embedded, reasons cleared, and counts them.
// Failed chunks always have their vector (extraction runs after embedding), so embedded is their state.
func (s *Store) RetryFailedChunks(ctx context.Context, docID string) (int, error) {
	var n int64
	err := s.write(ctx, "retry failed chunks", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE chunks SET status = 'embedded', error = ''
			WHERE doc_id = ? AND status = 'failed'`, docID)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: retry failed chunks of %s: %w", docID, err)
	}
	return int(n), nil
}
