package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Keys of the meta table that record a re-extraction of the graph under way: the chat model being staged,
// the embedding space of its facts' vectors and when it began (Unix nanoseconds, as edits' created_at).
const (
	metaReextractModel      = "reextract_model"
	metaReextractDim        = "reextract_dim"
	metaReextractEmbedModel = "reextract_embed_model"
	metaReextractSince      = "reextract_since"
)

// keepStaged is the graph_next of a chunk that keeps what the graph holds for it at the commit.
const keepStaged = graphrag.KeepStaged

// reextractWhere selects the passages a re-extraction extracts again (c a chunk, d its document): those of
// finished documents, not staged by a replace, that were extracted or failed.
const reextractWhere = `c.status IN ('extracted', 'failed') AND d.status IN ('done', 'failed') AND d.replaces = ''`

// reextraction is what the meta table records of a re-extraction; model is empty when none is under way.
type reextraction struct {
	model string
	space graphrag.EmbeddingSpace
	since int64
}

func readReextraction(ctx context.Context, tx *sql.Tx) (reextraction, error) {
	var r reextraction
	var err error
	if r.model, err = metaString(ctx, tx, metaReextractModel); err != nil {
		return r, err
	}
	if r.space.Dim, err = metaInt(ctx, tx, metaReextractDim); err != nil {
		return r, err
	}
	if r.space.Model, err = metaString(ctx, tx, metaReextractEmbedModel); err != nil {
		return r, err
	}
	since, err := metaString(ctx, tx, metaReextractSince)
	if err != nil || since == "" {
		return r, err
	}
	r.since, err = strconv.ParseInt(since, 10, 64)
	return r, err
}

// ReextractState reads the re-extraction recorded in the file, with its counts.
func (s *Store) ReextractState(ctx context.Context) (graphrag.ReextractState, error) {
	var st graphrag.ReextractState
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, fmt.Errorf("sqlite: re-extraction state: %w", err)
	}
	defer tx.Rollback()
	r, err := readReextraction(ctx, tx)
	if err != nil {
		return st, fmt.Errorf("sqlite: re-extraction state: %w", err)
	}
	st.Model, st.Space = r.model, r.space
	if r.since != 0 {
		st.Since = time.Unix(0, r.since).UTC()
	}
	err = tx.QueryRowContext(ctx, `SELECT count(*), count(c.graph_next), count(CASE WHEN c.graph_next = ? THEN 1 END)
		FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE `+reextractWhere, keepStaged).Scan(&st.Chunks, &st.Staged, &st.Kept)
	if err != nil {
		return st, fmt.Errorf("sqlite: re-extraction state: %w", err)
	}
	return st, nil
}

// BeginReextract records model and space as the re-extraction being staged; another one than the recorded
// drops what was staged for it first.
func (s *Store) BeginReextract(ctx context.Context, model string, space graphrag.EmbeddingSpace) error {
	if model == "" || space.Dim <= 0 {
		return fmt.Errorf("sqlite: begin re-extraction: a chat model and an embedding dimension are needed, got %q and %d", model, space.Dim)
	}
	err := s.write(ctx, "begin re-extraction", func(tx *sql.Tx) error {
		r, err := readReextraction(ctx, tx)
		if err != nil || r.model == model && r.space == space {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE chunks SET graph_next = NULL WHERE graph_next IS NOT NULL`); err != nil {
			return err
		}
		for k, v := range map[string]string{metaReextractModel: model, metaReextractDim: strconv.Itoa(space.Dim),
			metaReextractEmbedModel: space.Model, metaReextractSince: strconv.FormatInt(time.Now().UnixNano(), 10)} {
			if err := setMeta(ctx, tx, k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: begin re-extraction: %w", err)
	}
	return nil
}

// ReextractTodo returns passages to extract again without a staged extraction, in file order (a partial
// index holds the passages without one).
func (s *Store) ReextractTodo(ctx context.Context, limit int) ([]graphrag.Chunk, error) {
	rows, err := s.reader.QueryContext(ctx, chunkQuery+` WHERE c.graph_next IS NULL AND `+reextractWhere+`
		ORDER BY c.seq LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: re-extraction to do: %w", err)
	}
	defer rows.Close()
	var out []graphrag.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: re-extraction to do: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: re-extraction to do: %w", err)
	}
	return out, nil
}

// StageReextraction records a chunk's new extraction (or that it keeps its part of the graph) in its
// graph_next; nothing reads it before CommitReextract.
func (s *Store) StageReextraction(ctx context.Context, x graphrag.Extraction, keep bool) error {
	staged, err := graphrag.StagedRecord(x, keep)
	if err != nil {
		return fmt.Errorf("sqlite: stage the extraction of %s: %w", x.ChunkID, err)
	}
	err = s.write(ctx, "stage extraction", func(tx *sql.Tx) error {
		r, err := readReextraction(ctx, tx)
		if err != nil {
			return err
		}
		if err := graphrag.CheckStaging(r.model, r.space.Dim, x, keep); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE chunks SET graph_next = ? WHERE id = ?`, staged, x.ChunkID)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: stage the extraction of %s: %w", x.ChunkID, err)
	}
	return nil
}

// keepIfReextracting stages a chunk an ingest has just extracted as kept while a re-extraction is under
// way: it was extracted with the configured model, so the re-extraction need not extract it again.
func keepIfReextracting(ctx context.Context, tx *sql.Tx, chunkID string) error {
	_, err := tx.ExecContext(ctx, `UPDATE chunks SET graph_next = ? WHERE id = ?
		AND EXISTS (SELECT 1 FROM meta WHERE key = ?)`, keepStaged, chunkID, metaReextractModel)
	return err
}

// CommitReextract swaps the staged extractions into the graph in one transaction (see
// graphrag.ReextractStore) and counts it in the generation. Readers see the old graph until it commits
// (WAL snapshots); the in-memory vectors are the chunks' and do not change.
func (s *Store) CommitReextract(ctx context.Context) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	var n int
	err := s.write(ctx, "commit re-extraction", func(tx *sql.Tx) error {
		var err error
		n, err = s.commitReextract(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: commit re-extraction: %w", err)
	}
	s.logger.Info("sqlite re-extraction committed", "path", s.path, "passages", n)
	return nil
}

func (s *Store) commitReextract(ctx context.Context, tx *sql.Tx) (int, error) {
	r, err := readReextraction(ctx, tx)
	if err != nil {
		return 0, err
	}
	if err := graphrag.CheckReextractCommit(r.model, r.space.Dim, s.embedDim()); err != nil {
		return 0, err
	}
	if err := s.checkSpace(ctx, tx); err != nil {
		return 0, err
	}
	var todo int
	err = tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE c.graph_next IS NULL AND `+reextractWhere).Scan(&todo)
	if err != nil {
		return 0, err
	}
	if todo > 0 {
		return 0, fmt.Errorf("%d passages have no new extraction yet: %w", todo, graphrag.ErrReextractIncomplete)
	}
	edits, err := editsSince(ctx, tx, r.since)
	if err != nil {
		return 0, err
	}
	rules := graphrag.StagedEditRules(edits, time.Unix(0, r.since))
	ids, err := queryStrings(ctx, tx, `SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE c.graph_next IS NOT NULL AND c.graph_next <> ? AND d.replaces = '' ORDER BY c.seq`, keepStaged)
	if err != nil {
		return 0, err
	}
	if err := detachChunks(ctx, tx, ids); err != nil {
		return 0, err
	}
	for _, id := range ids {
		var raw string
		if err := tx.QueryRowContext(ctx, `SELECT graph_next FROM chunks WHERE id = ?`, id).Scan(&raw); err != nil {
			return 0, fmt.Errorf("chunk %s: %w", id, err)
		}
		plan, err := graphrag.PlanStaged(id, raw, rules, s.embedDim())
		if err != nil {
			return 0, err
		}
		if err := applyPlan(ctx, tx, plan); err != nil {
			return 0, fmt.Errorf("chunk %s: %w", id, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE chunks SET graph_next = NULL WHERE graph_next IS NOT NULL`); err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM meta WHERE key IN (?, ?, ?, ?)`,
		metaReextractModel, metaReextractDim, metaReextractEmbedModel, metaReextractSince)
	if err != nil {
		return 0, err
	}
	// A retrieval pass that read the old graph before this commit and the new one after it is made again.
	return len(ids), countChange(ctx, tx)
}

// detachChunks removes the chunks' mentions and supports, then the relations and entities left without
// any.
func detachChunks(ctx context.Context, tx *sql.Tx, ids []string) error {
	var keys, rels []string
	for lo := 0; lo < len(ids); lo += batchSize {
		part := stringArgs(ids[lo:min(lo+batchSize, len(ids))])
		in := placeholders(len(part))
		k, err := queryStrings(ctx, tx, `SELECT DISTINCT entity_key FROM mentions WHERE chunk_id IN (`+in+`)`, part...)
		if err != nil {
			return err
		}
		r, err := queryStrings(ctx, tx, `SELECT DISTINCT relation_id FROM relation_chunks WHERE chunk_id IN (`+in+`)`, part...)
		if err != nil {
			return err
		}
		keys, rels = append(keys, k...), append(rels, r...)
	}
	for _, step := range []struct {
		query  string
		values []string
	}{
		{`DELETE FROM mentions WHERE chunk_id IN (%s)`, ids},
		{`DELETE FROM relation_chunks WHERE chunk_id IN (%s)`, ids},
		{`DELETE FROM relations WHERE id IN (%s)
			AND NOT EXISTS (SELECT 1 FROM relation_chunks rc WHERE rc.relation_id = relations.id)`, unique(rels)},
		{`DELETE FROM entities WHERE key IN (%s)
			AND NOT EXISTS (SELECT 1 FROM mentions m WHERE m.entity_key = entities.key)`, unique(keys)},
	} {
		if err := execBatches(ctx, tx, step.query, step.values); err != nil {
			return err
		}
	}
	return nil
}

// editsSince reads the applied edits made at or after since (Unix nanoseconds).
func editsSince(ctx context.Context, tx *sql.Tx, since int64) ([]graphrag.Edit, error) {
	rows, err := tx.QueryContext(ctx, `SELECT created_at, body FROM edits WHERE status = 'applied' AND created_at >= ?
		ORDER BY created_at, id`, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphrag.Edit
	for rows.Next() {
		var created int64
		var body string
		if err := rows.Scan(&created, &body); err != nil {
			return nil, err
		}
		var e graphrag.Edit
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			return nil, fmt.Errorf("edit: %w", err)
		}
		e.Status, e.CreatedAt = graphrag.EditApplied, time.Unix(0, created).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
