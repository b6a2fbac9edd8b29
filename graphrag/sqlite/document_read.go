package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// documentQuery selects documents with the counts graphrag.Document carries.
const documentQuery = `SELECT d.id, d.name, d.title, d.format, d.hash, d.size, d.status, d.error,
	d.created_at, d.updated_at, d.replaces,
	(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id),
	(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id AND c.embedding IS NOT NULL),
	(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id AND c.status IN ('extracted', 'failed')),
	(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id AND c.status = 'failed'),
	(SELECT count(DISTINCT m.entity_key) FROM chunks c JOIN mentions m ON m.chunk_id = c.id WHERE c.doc_id = d.id),
	(SELECT count(DISTINCT rc.relation_id) FROM chunks c JOIN relation_chunks rc ON rc.chunk_id = c.id WHERE c.doc_id = d.id)
	FROM documents d`

// Document returns one document with its counts, or ErrNotFound.
func (s *Store) Document(ctx context.Context, id string) (graphrag.Document, error) {
	doc, err := scanDocument(s.reader.QueryRowContext(ctx, documentQuery+` WHERE d.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return graphrag.Document{}, fmt.Errorf("sqlite: document %q: %w", id, graphrag.ErrNotFound)
	}
	if err != nil {
		return graphrag.Document{}, fmt.Errorf("sqlite: document %q: %w", id, err)
	}
	return doc, nil
}

// Documents lists every document with its counts, newest first.
func (s *Store) Documents(ctx context.Context) ([]graphrag.Document, error) {
	return s.documents(ctx, "")
}

// DocumentsNamed lists the documents whose file name is name, with their counts, newest first. The names
// are compared first, without the counts, so an upload that matches nothing costs one pass of a column.
func (s *Store) DocumentsNamed(ctx context.Context, name string) ([]graphrag.Document, error) {
	ids, err := queryStrings(ctx, s.reader, `SELECT id FROM documents WHERE name = ?`, name)
	if err != nil || len(ids) == 0 {
		if err != nil {
			return nil, fmt.Errorf("sqlite: documents named %q: %w", name, err)
		}
		return nil, nil
	}
	return s.documents(ctx, ` WHERE d.name = ?`, name)
}

// documents lists the documents where selects (a WHERE clause or nothing), newest first.
func (s *Store) documents(ctx context.Context, where string, args ...any) ([]graphrag.Document, error) {
	rows, err := s.reader.QueryContext(ctx, documentQuery+where+` ORDER BY d.created_at DESC, d.id`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: documents: %w", err)
	}
	defer rows.Close()
	var docs []graphrag.Document
	for rows.Next() {
		doc, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: documents: %w", err)
		}
		docs = append(docs, doc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: documents: %w", err)
	}
	return docs, nil
}

// DocumentSource returns the bytes a document was uploaded with, or ErrNotFound.
func (s *Store) DocumentSource(ctx context.Context, id string) ([]byte, error) {
	var b []byte
	err := s.reader.QueryRowContext(ctx, `SELECT bytes FROM sources WHERE doc_id = ?`, id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: document source %q: %w", id, graphrag.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: document source %q: %w", id, err)
	}
	return b, nil
}

// scanner is what *sql.Row and *sql.Rows share.
type scanner interface{ Scan(dest ...any) error }

func scanDocument(row scanner) (graphrag.Document, error) {
	var d graphrag.Document
	var status string
	var created, updated int64
	err := row.Scan(&d.ID, &d.Name, &d.Title, &d.Format, &d.Hash, &d.Size, &status, &d.Error, &created, &updated, &d.Replaces,
		&d.Chunks, &d.ChunksEmbedded, &d.ChunksExtracted, &d.FailedChunks, &d.Entities, &d.Relations)
	d.Status = graphrag.DocStatus(status)
	d.CreatedAt, d.UpdatedAt = fromNanos(created), fromNanos(updated)
	return d, err
}

// fromNanos reads a time stored as Unix nanoseconds.
func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }
