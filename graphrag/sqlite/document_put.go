package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// PutDocument stores a new document and its source bytes, or returns the existing one unchanged with
// created=false. Empty Hash, Size, Status and times are filled from source and the clock.
func (s *Store) PutDocument(ctx context.Context, doc graphrag.Document, source []byte) (graphrag.Document, bool, error) {
	if doc.ID == "" {
		return graphrag.Document{}, false, errors.New("sqlite: put document: empty ID")
	}
	if doc.Hash == "" {
		doc.Hash = graphrag.ContentHash(source)
	}
	if doc.Size == 0 {
		doc.Size = int64(len(source))
	}
	if doc.Status == "" {
		doc.Status = graphrag.StatusQueued
	}
	if doc.CreatedAt.IsZero() {
		doc.CreatedAt = time.Now()
	}
	if doc.UpdatedAt.IsZero() {
		doc.UpdatedAt = doc.CreatedAt
	}
	if source == nil {
		source = []byte{}
	}
	var created bool
	err := s.write(ctx, "put document", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO documents
			(id, name, title, format, hash, size, status, error, created_at, updated_at, replaces)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			doc.ID, doc.Name, doc.Title, doc.Format, doc.Hash, doc.Size, string(doc.Status), doc.Error,
			doc.CreatedAt.UnixNano(), doc.UpdatedAt.UnixNano(), doc.Replaces)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		created = n == 1
		// Also for a document already there: a failed one lost its bytes (SetDocumentStatus), and
		// uploading it again brings them back.
		_, err = tx.ExecContext(ctx, `INSERT INTO sources (doc_id, bytes) VALUES (?, ?) ON CONFLICT (doc_id) DO NOTHING`, doc.ID, source)
		return err
	})
	if err != nil {
		return graphrag.Document{}, false, fmt.Errorf("sqlite: put document %s: %w", doc.ID, err)
	}
	stored, err := s.Document(ctx, doc.ID)
	if err != nil {
		return graphrag.Document{}, false, fmt.Errorf("sqlite: put document: %w", err)
	}
	return stored, created, nil
}

// SetDocumentStatus records a job step and its reason (cleared when empty); title and format change only
// when given. A failed document's uploaded bytes are deleted with it: nothing will read them again
// unless the same file is uploaded again, which brings them back.
func (s *Store) SetDocumentStatus(ctx context.Context, id string, status graphrag.DocStatus, reason string, meta graphrag.DocumentMeta) error {
	err := s.write(ctx, "set document status", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE documents SET status = ?1, error = ?2,
			title = CASE WHEN ?3 <> '' THEN ?3 ELSE title END,
			format = CASE WHEN ?4 <> '' THEN ?4 ELSE format END,
			updated_at = max(updated_at, ?5)
			WHERE id = ?6`,
			string(status), reason, meta.Title, meta.Format, time.Now().UnixNano(), id)
		if err != nil {
			return err
		}
		if err := requireRow(res, "document", id); err != nil || status != graphrag.StatusFailed {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM sources WHERE doc_id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: set document %s status %s: %w", id, status, err)
	}
	return nil
}

// requireRow turns an update that matched nothing into ErrNotFound.
func requireRow(res sql.Result, what, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no %s %q: %w", what, id, graphrag.ErrNotFound)
	}
	return nil
}
