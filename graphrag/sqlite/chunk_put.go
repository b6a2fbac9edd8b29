package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// PutChunks stores the chunks of an existing document as pending without embeddings; a chunk whose ID
// exists keeps its text and state. An empty chunk ID is derived from the document and ordinal.
func (s *Store) PutChunks(ctx context.Context, docID string, chunks []graphrag.Chunk) error {
	err := s.write(ctx, "put chunks", func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM documents WHERE id = ?`, docID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("no document %q: %w", docID, graphrag.ErrNotFound)
		}
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO chunks (id, doc_id, ordinal, section, text, tokens, page, status)
			VALUES (?, ?, ?, ?, ?, ?, ?, 'pending') ON CONFLICT (id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, c := range chunks {
			id := c.ID
			if id == "" {
				id = graphrag.ChunkID(docID, c.Ordinal)
			}
			section, err := json.Marshal(nonNil(c.Section))
			if err != nil {
				return err
			}
			if _, err := stmt.ExecContext(ctx, id, docID, c.Ordinal, string(section), c.Text, c.Tokens, c.Page); err != nil {
				return fmt.Errorf("chunk %s: %w", id, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: put chunks of %s: %w", docID, err)
	}
	return nil
}

// nonNil returns s, or an empty slice for nil, so JSON says [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
