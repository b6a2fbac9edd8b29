package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// SetEmbeddings stores vectors by chunk ID, marks pending chunks embedded (later states are kept) and
// updates the in-memory copy, which holds staged chunks' vectors only from ReplaceDocument on. It refuses the whole batch when one vector has another dimension than the
// store's; unknown chunk IDs are skipped.
func (s *Store) SetEmbeddings(ctx context.Context, vectors map[string][]float32) error {
	ids := slices.Sorted(maps.Keys(vectors))
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	for _, id := range ids {
		if len(vectors[id]) != s.embedDim() {
			return fmt.Errorf("sqlite: set embeddings: chunk %s has %d values, the store %d: %w",
				id, len(vectors[id]), s.embedDim(), graphrag.ErrDimension)
		}
	}
	var stored []string
	err := s.write(ctx, "set embeddings", func(tx *sql.Tx) error {
		stored = stored[:0]
		if err := s.checkSpace(ctx, tx); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `UPDATE chunks SET embedding = ?,
			status = CASE WHEN status = 'pending' THEN 'embedded' ELSE status END WHERE id = ?
			RETURNING doc_id`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		staged := map[string]bool{}
		for _, id := range ids {
			var docID string
			err := stmt.QueryRowContext(ctx, encodeVector(vectors[id]), id).Scan(&docID)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("chunk %s: %w", id, err)
			}
			isStaged, seen := staged[docID]
			if !seen {
				if isStaged, err = docStaged(ctx, tx, docID); err != nil {
					return err
				}
				staged[docID] = isStaged
			}
			if !isStaged {
				stored = append(stored, id)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: set embeddings: %w", err)
	}
	for _, id := range stored {
		s.vectors.put(id, vectors[id])
	}
	return nil
}

// loadVectors fills the in-memory copy from the file.
func (s *Store) loadVectors(ctx context.Context) error {
	rows, err := s.reader.QueryContext(ctx, `SELECT c.id, c.embedding FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE c.embedding IS NOT NULL AND d.replaces = ''`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			return err
		}
		vec, err := decodeVector(blob, s.embedDim())
		if err != nil {
			return fmt.Errorf("chunk %s: %w", id, err)
		}
		s.vectors.put(id, vec)
	}
	return rows.Err()
}
