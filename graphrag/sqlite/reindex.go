package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Keys of the meta table that record a re-embedding under way: the model and dimension being staged.
const (
	metaReembedDim   = "reembed_dim"
	metaReembedModel = "reembed_model"
)

// EmbeddingSpace is the model and dimension of the vectors searches use now.
func (s *Store) EmbeddingSpace() graphrag.EmbeddingSpace { return *s.space.Load() }

// embedDim is the dimension of the searched vectors.
func (s *Store) embedDim() int { return s.space.Load().Dim }

// ReembedState reads the re-embedding recorded in the file, with its counts.
func (s *Store) ReembedState(ctx context.Context) (graphrag.ReembedState, error) {
	st := graphrag.ReembedState{Active: s.EmbeddingSpace()}
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, fmt.Errorf("sqlite: re-embedding state: %w", err)
	}
	defer tx.Rollback()
	if st.Target, err = reembedTarget(ctx, tx); err != nil {
		return st, fmt.Errorf("sqlite: re-embedding state: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM chunks WHERE embedding IS NOT NULL),
		(SELECT count(*) FROM chunks WHERE embedding IS NOT NULL AND embedding_next IS NOT NULL),
		(SELECT count(*) FROM relations WHERE embedding IS NOT NULL),
		(SELECT count(*) FROM relations WHERE embedding IS NOT NULL AND embedding_next IS NOT NULL)`).
		Scan(&st.Chunks, &st.ChunksStaged, &st.Relations, &st.RelationsStaged)
	if err != nil {
		return st, fmt.Errorf("sqlite: re-embedding state: %w", err)
	}
	return st, nil
}

// reembedTarget reads the space being staged; zero when none.
func reembedTarget(ctx context.Context, tx *sql.Tx) (graphrag.EmbeddingSpace, error) {
	dim, err := metaInt(ctx, tx, metaReembedDim)
	if err != nil {
		return graphrag.EmbeddingSpace{}, err
	}
	model, err := metaString(ctx, tx, metaReembedModel)
	return graphrag.EmbeddingSpace{Model: model, Dim: dim}, err
}

// BeginReembed records target as the space being staged; another target than the recorded one drops the
// vectors staged for it first.
func (s *Store) BeginReembed(ctx context.Context, target graphrag.EmbeddingSpace) error {
	if target.Dim <= 0 {
		return fmt.Errorf("sqlite: begin re-embedding: dimension must be positive, got %d", target.Dim)
	}
	err := s.write(ctx, "begin re-embedding", func(tx *sql.Tx) error {
		recorded, err := reembedTarget(ctx, tx)
		if err != nil || recorded == target {
			return err
		}
		for _, q := range []string{
			`UPDATE chunks SET embedding_next = NULL WHERE embedding_next IS NOT NULL`,
			`UPDATE relations SET embedding_next = NULL WHERE embedding_next IS NOT NULL`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if err := setMeta(ctx, tx, metaReembedDim, strconv.Itoa(target.Dim)); err != nil {
			return err
		}
		return setMeta(ctx, tx, metaReembedModel, target.Model)
	})
	if err != nil {
		return fmt.Errorf("sqlite: begin re-embedding: %w", err)
	}
	return nil
}

// ReembedTodo returns passages and facts with a vector and no staged one, in file order (a partial index
// holds exactly those, so each batch costs its own size whatever is already staged).
func (s *Store) ReembedTodo(ctx context.Context, limit int) ([]graphrag.Chunk, []graphrag.Relation, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, text FROM chunks
		WHERE embedding IS NOT NULL AND embedding_next IS NULL ORDER BY seq LIMIT ?`, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: re-embedding to do: %w", err)
	}
	var chunks []graphrag.Chunk
	for rows.Next() {
		var c graphrag.Chunk
		if err := rows.Scan(&c.ID, &c.Text); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("sqlite: re-embedding to do: %w", err)
		}
		chunks = append(chunks, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlite: re-embedding to do: %w", err)
	}
	rows, err = s.reader.QueryContext(ctx, `SELECT r.id, r.type, src.name, dst.name FROM relations r
		JOIN entities src ON src.key = r.source JOIN entities dst ON dst.key = r.target
		WHERE r.embedding IS NOT NULL AND r.embedding_next IS NULL ORDER BY r.id LIMIT ?`, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: re-embedding to do: %w", err)
	}
	defer rows.Close()
	var rels []graphrag.Relation
	for rows.Next() {
		var r graphrag.Relation
		if err := rows.Scan(&r.ID, &r.Type, &r.SourceName, &r.TargetName); err != nil {
			return nil, nil, fmt.Errorf("sqlite: re-embedding to do: %w", err)
		}
		rels = append(rels, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlite: re-embedding to do: %w", err)
	}
	return chunks, rels, nil
}

// StageEmbeddings stores staged vectors of the target space, never read by a search before CommitReembed.
func (s *Store) StageEmbeddings(ctx context.Context, chunks, relations map[string][]float32) error {
	err := s.write(ctx, "stage embeddings", func(tx *sql.Tx) error {
		target, err := reembedTarget(ctx, tx)
		if err != nil {
			return err
		}
		if target.Dim == 0 {
			return fmt.Errorf("no re-embedding has begun")
		}
		for _, set := range []struct {
			table   string
			vectors map[string][]float32
		}{{"chunks", chunks}, {"relations", relations}} {
			ids := slices.Sorted(maps.Keys(set.vectors))
			for _, id := range ids {
				if n := len(set.vectors[id]); n != target.Dim {
					return fmt.Errorf("%s %s has %d values, the re-embedding %d: %w", set.table, id, n, target.Dim, graphrag.ErrDimension)
				}
			}
			for _, id := range ids {
				_, err := tx.ExecContext(ctx, `UPDATE `+set.table+` SET embedding_next = ? WHERE id = ? AND embedding IS NOT NULL`,
					encodeVector(set.vectors[id]), id)
				if err != nil {
					return fmt.Errorf("%s %s: %w", set.table, id, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: stage embeddings: %w", err)
	}
	return nil
}

// CommitReembed moves every staged vector into place and records the target as the file's space, in one
// transaction, then swaps the in-memory vectors. No vector write of this Store runs meanwhile (vecMu and
// spaceMu), searches wait only for the swap, and until the commit they read the old vectors as before.
func (s *Store) CommitReembed(ctx context.Context) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	s.spaceMu.Lock()
	defer s.spaceMu.Unlock()
	var target graphrag.EmbeddingSpace
	var next *vectorIndex
	var before, after int64
	err := s.write(ctx, "commit re-embedding", func(tx *sql.Tx) error {
		var err error
		if target, err = reembedTarget(ctx, tx); err != nil {
			return err
		}
		if before, err = changeCount(ctx, tx); err != nil {
			return err
		}
		if target.Dim == 0 {
			return fmt.Errorf("no re-embedding has begun")
		}
		var chunks, rels int
		err = tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM chunks WHERE embedding IS NOT NULL AND embedding_next IS NULL),
			(SELECT count(*) FROM relations WHERE embedding IS NOT NULL AND embedding_next IS NULL)`).Scan(&chunks, &rels)
		if err != nil {
			return err
		}
		if chunks+rels > 0 {
			return fmt.Errorf("%d passages and %d facts have no new vector yet: %w", chunks, rels, graphrag.ErrReembedIncomplete)
		}
		if next, err = stagedIndex(ctx, tx, target.Dim); err != nil {
			return err
		}
		for _, q := range []string{
			`UPDATE chunks SET embedding = embedding_next, embedding_next = NULL WHERE embedding_next IS NOT NULL`,
			`UPDATE relations SET embedding = embedding_next, embedding_next = NULL WHERE embedding_next IS NOT NULL`,
			`DELETE FROM meta WHERE key IN ('` + metaReembedDim + `', '` + metaReembedModel + `')`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		if err := setMeta(ctx, tx, metaEmbedDim, strconv.Itoa(target.Dim)); err != nil {
			return err
		}
		if err := setMeta(ctx, tx, metaEmbedModel, target.Model); err != nil {
			return err
		}
		// A retrieval pass across the swap would search two spaces: it is counted as a change.
		if err := countChange(ctx, tx); err != nil {
			return err
		}
		after, err = changeCount(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: commit re-embedding: %w", err)
	}
	s.swapMu.Lock()
	if old := s.EmbeddingSpace(); old.Dim != target.Dim {
		prev := &vectorIndex{}
		prev.replaceWith(s.vectors)
		s.previous = prev
		time.AfterFunc(PreviousVectorsFor, func() {
			s.swapMu.Lock()
			if s.previous == prev {
				s.previous = nil
			}
			s.swapMu.Unlock()
		})
	}
	s.vectors.replaceWith(next)
	s.vectors.track(before, after)
	s.space.Store(&target)
	s.swapMu.Unlock()
	s.logger.Info("sqlite re-embedding committed", "path", s.path, "model", target.Model, "dim", target.Dim, "vectors", next.len())
	return nil
}

// stagedIndex builds the in-memory copy of the staged vectors of searchable chunks.
func stagedIndex(ctx context.Context, tx *sql.Tx, dim int) (*vectorIndex, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.seq, c.embedding_next FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE c.embedding_next IS NOT NULL AND d.replaces = ''`)
	if err != nil {
		return nil, err
	}
	idx := newVectorIndex(dim)
	return idx, scanVectors(rows, dim, idx.putLocked)
}

// PreviousVectorsFor is how long after a re-embedding to another dimension the vectors it replaced still
// answer queries of their dimension: a question whose queries were embedded by the old model just before
// the commit gets its passages, not an error. Then they are dropped from memory.
const PreviousVectorsFor = 5 * time.Minute

// previousIndex is the replaced vector index when it is of dimension dim; swapMu is held.
func (s *Store) previousIndex(dim int) *vectorIndex {
	if s.previous == nil || s.previous.dim != dim {
		return nil
	}
	return s.previous
}

// checkSpace fails a write of vectors when the file's recorded dimension is no longer this Store's: another
// process committed a re-embedding, and vectors of the old dimension must not join the new ones.
func (s *Store) checkSpace(ctx context.Context, tx *sql.Tx) error {
	dim, err := metaInt(ctx, tx, metaEmbedDim)
	if err != nil {
		return err
	}
	if own := s.embedDim(); dim != 0 && dim != own {
		return fmt.Errorf("another process re-embedded this store with %d dimensions (this one writes %d): restart "+
			"this process: %w", dim, own, graphrag.ErrDimension)
	}
	return nil
}
