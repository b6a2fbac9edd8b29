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
	var seqs []int64
	var before, after int64
	err := s.write(ctx, "set embeddings", func(tx *sql.Tx) error {
		seqs = seqs[:0]
		stored = stored[:0]
		if err := s.checkSpace(ctx, tx); err != nil {
			return err
		}
		var err error
		if before, err = changeCount(ctx, tx); err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `UPDATE chunks SET embedding = ?,
			status = CASE WHEN status = 'pending' THEN 'embedded' ELSE status END WHERE id = ?
			RETURNING doc_id, seq`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		staged := map[string]bool{}
		for _, id := range ids {
			var docID string
			var seq int64
			err := stmt.QueryRowContext(ctx, encodeVector(vectors[id]), id).Scan(&docID, &seq)
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
				seqs = append(seqs, seq)
			}
		}
		after, err = changeCount(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: set embeddings: %w", err)
	}
	for i, id := range stored {
		s.vectors.put(seqs[i], vectors[id])
	}
	s.vectors.track(before, after)
	return nil
}
