package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// PutExtraction merges a chunk's entities by key and relations by ID with graphrag's merge rules
// (graphrag.PlanExtraction, MergeEntity, MergeRelation) and marks the chunk extracted, in one transaction.
// Every entity and both ends of every relation are recorded as mentioned by the chunk, so an entity lives
// exactly while some chunk mentions it and a relation's ends outlive the relation. An extraction without
// its keys and IDs is graphrag.ErrUnresolved, a relation vector of another dimension
// graphrag.ErrDimension, an unknown chunk ErrNotFound. A staged chunk's extraction is only recorded, and
// merged by ReplaceDocument.
func (s *Store) PutExtraction(ctx context.Context, x graphrag.Extraction) error {
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	ctx = withPrepared(ctx, s.prepared)
	defer s.prepared.prepareNoted(ctx)
	plan, err := graphrag.PlanExtraction(x, s.embedDim())
	if err != nil {
		return fmt.Errorf("sqlite: put extraction of %s: %w", x.ChunkID, err)
	}
	err = s.batchWrite(ctx, "put extraction", func(tx *sql.Tx) error {
		if err := requireChunk(ctx, tx, x.ChunkID); err != nil {
			return err
		}
		if err := s.checkSpace(ctx, tx); err != nil {
			return err
		}
		if staged, err := chunkStaged(ctx, tx, x.ChunkID); err != nil || staged {
			if err != nil {
				return err
			}
			return stageChunk(ctx, tx, x.ChunkID, stagedContribution{Extraction: &x})
		}
		if err := keepIfReextracting(ctx, tx, x.ChunkID); err != nil {
			return err
		}
		return applyPlan(ctx, tx, plan)
	})
	if err != nil {
		return fmt.Errorf("sqlite: put extraction of %s: %w", x.ChunkID, err)
	}
	return nil
}

// applyPlan merges a planned extraction into the graph and marks its chunk extracted.
func applyPlan(ctx context.Context, tx *sql.Tx, plan graphrag.ExtractionPlan) error {
	for _, e := range plan.Entities {
		if err := putEntity(ctx, tx, e); err != nil {
			return fmt.Errorf("entity %q: %w", e.Key, err)
		}
		if err := addMentions(ctx, tx, e.Key, e.ChunkIDs); err != nil {
			return fmt.Errorf("entity %q: %w", e.Key, err)
		}
	}
	for _, r := range plan.Relations {
		if err := putRelation(ctx, tx, r); err != nil {
			return fmt.Errorf("relation %s: %w", r.ID, err)
		}
	}
	_, err := execTx(ctx, tx, `UPDATE chunks SET status = 'extracted', error = '' WHERE id = ?`, plan.ChunkID)
	return err
}

// MarkChunkFailed ends a chunk's extraction with a reason; an unknown chunk is ErrNotFound.
func (s *Store) MarkChunkFailed(ctx context.Context, chunkID, reason string) error {
	err := s.write(ctx, "mark chunk failed", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE chunks SET status = 'failed', error = ? WHERE id = ?`, reason, chunkID)
		if err != nil {
			return err
		}
		return requireRow(res, "chunk", chunkID)
	})
	if err != nil {
		return fmt.Errorf("sqlite: mark chunk %s failed: %w", chunkID, err)
	}
	return nil
}

func requireChunk(ctx context.Context, tx *sql.Tx, id string) error {
	var one int
	err := queryRowTx(ctx, tx, `SELECT 1 FROM chunks WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("no chunk %q: %w", id, graphrag.ErrNotFound)
	}
	return err
}

// putEntity merges e into the entity its key holds (graphrag.MergeEntity), or inserts it; one named only
// as a relation's end is left as it is when it exists. An unchanged entity is not rewritten, which spares
// its full-text entry.
func putEntity(ctx context.Context, tx *sql.Tx, e graphrag.PlannedEntity) error {
	stored, err := readEntity(ctx, tx, e.Key)
	if err != nil {
		return err
	}
	if stored.Key != "" && e.EndOnly {
		return nil
	}
	merged := graphrag.MergeEntity(stored, e.Entity)
	if stored.Key != "" && graphrag.SameEntity(stored, merged) {
		return nil
	}
	aliases, err := json.Marshal(merged.Aliases)
	if err != nil {
		return err
	}
	if stored.Key == "" {
		_, err = execTx(ctx, tx, `INSERT INTO entities (key, name, type, description, aliases) VALUES (?, ?, ?, ?, ?)`,
			merged.Key, merged.Name, merged.Type, merged.Description, string(aliases))
		return err
	}
	_, err = execTx(ctx, tx, `UPDATE entities SET type = ?, description = ?, aliases = ? WHERE key = ?`,
		merged.Type, merged.Description, string(aliases), merged.Key)
	return err
}

// readEntity returns the entity key holds, without provenance; the zero Entity when there is none.
func readEntity(ctx context.Context, tx *sql.Tx, key string) (graphrag.Entity, error) {
	e := graphrag.Entity{Key: key}
	var aliases string
	found, err := scanOne(ctx, tx, `SELECT name, type, description, aliases FROM entities WHERE key = ?`, key,
		&e.Name, &e.Type, &e.Description, &aliases)
	if err != nil || !found {
		return graphrag.Entity{}, err
	}
	if err := json.Unmarshal([]byte(aliases), &e.Aliases); err != nil {
		return graphrag.Entity{}, fmt.Errorf("aliases: %w", err)
	}
	return e, nil
}

// scanOne scans the row q selects by arg into dest; found is false when there is none.
func scanOne(ctx context.Context, tx *sql.Tx, q string, arg any, dest ...any) (found bool, err error) {
	err = queryRowTx(ctx, tx, q, arg).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// addMentions records that these chunks mention the entity; chunk IDs not in the store are skipped.
func addMentions(ctx context.Context, tx *sql.Tx, key string, chunkIDs []string) error {
	for _, id := range unique(chunkIDs) {
		_, err := execTx(ctx, tx, `INSERT INTO mentions (entity_key, chunk_id)
			SELECT ?, id FROM chunks WHERE id = ? ON CONFLICT DO NOTHING`, key, id)
		if err != nil {
			return err
		}
	}
	return nil
}

// putRelation merges r into the relation its ID holds (graphrag.MergeRelation), or inserts it, and records
// its supporting chunks; its ends are in the store by now. An unchanged relation is not rewritten.
func putRelation(ctx context.Context, tx *sql.Tx, r graphrag.Relation) error {
	stored, err := readRelation(ctx, tx, r.ID)
	if err != nil {
		return err
	}
	merged := graphrag.MergeRelation(stored, r)
	if err := writeRelation(ctx, tx, stored, merged); err != nil {
		return err
	}
	for _, id := range r.ChunkIDs {
		_, err := execTx(ctx, tx, `INSERT INTO relation_chunks (relation_id, chunk_id)
			SELECT ?, id FROM chunks WHERE id = ? ON CONFLICT DO NOTHING`, r.ID, id)
		if err != nil {
			return err
		}
	}
	return nil
}

// readRelation returns the relation id holds, without provenance; the zero Relation when there is none.
func readRelation(ctx context.Context, tx *sql.Tx, id string) (graphrag.Relation, error) {
	r := graphrag.Relation{ID: id}
	var vals string
	var vec []byte
	found, err := scanOne(ctx, tx, `SELECT source, target, type, description, vals, embedding FROM relations WHERE id = ?`, id,
		&r.Source, &r.Target, &r.Type, &r.Description, &vals, &vec)
	if err != nil || !found {
		return graphrag.Relation{}, err
	}
	if err := json.Unmarshal([]byte(vals), &r.Values); err != nil {
		return graphrag.Relation{}, fmt.Errorf("values: %w", err)
	}
	if vec != nil {
		if r.Embedding, err = decodeVector(vec, len(vec)/4); err != nil {
			return graphrag.Relation{}, err
		}
	}
	return r, nil
}

// writeRelation inserts merged, or updates stored to it when a value changed.
func writeRelation(ctx context.Context, tx *sql.Tx, stored, merged graphrag.Relation) error {
	vals, err := json.Marshal(merged.Values)
	if err != nil {
		return err
	}
	var vec []byte
	if merged.Embedding != nil {
		vec = encodeVector(merged.Embedding)
	}
	if stored.ID == "" {
		_, err = execTx(ctx, tx, `INSERT INTO relations (id, source, target, type, description, vals, embedding)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, merged.ID, merged.Source, merged.Target, merged.Type, merged.Description, string(vals), vec)
		return err
	}
	was, err := json.Marshal(stored.Values) // as JSON: a value read back as 5921.0 equals the 5921 put
	if err != nil {
		return err
	}
	if merged.Description == stored.Description && bytes.Equal(vals, was) && slices.Equal(merged.Embedding, stored.Embedding) {
		return nil
	}
	_, err = execTx(ctx, tx, `UPDATE relations SET description = ?, vals = ?, embedding = ? WHERE id = ?`,
		merged.Description, string(vals), vec, merged.ID)
	return err
}
