package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// stagedContribution is what a staged chunk gives the graph once its document is complete (the staged
// column, as JSON): the extraction found in it, or the chunk of the replaced document with the same text,
// whose mentions and relations it takes over.
type stagedContribution struct {
	Extraction *graphrag.Extraction `json:"extraction,omitempty"`
	ReuseOf    string               `json:"reuse_of,omitempty"`
}

// docStaged reports whether a document replaces another, so its chunks are staged.
func docStaged(ctx context.Context, tx *sql.Tx, docID string) (bool, error) {
	var staged bool
	_, err := scanOne(ctx, tx, `SELECT replaces <> '' FROM documents WHERE id = ?`, docID, &staged)
	return staged, err
}

// chunkStaged reports whether a chunk belongs to a document that replaces another.
func chunkStaged(ctx context.Context, tx *sql.Tx, chunkID string) (bool, error) {
	var staged bool
	_, err := scanOne(ctx, tx, `SELECT d.replaces <> '' FROM chunks c JOIN documents d ON d.id = c.doc_id
		WHERE c.id = ?`, chunkID, &staged)
	return staged, err
}

// stageChunk records a staged chunk's contribution and marks it extracted.
func stageChunk(ctx context.Context, tx *sql.Tx, chunkID string, c stagedContribution) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE chunks SET staged = ?, status = 'extracted', error = '' WHERE id = ?`, string(b), chunkID)
	return err
}

// ReuseChunks gives staged chunks the vector of the replaced document's chunk with the same text and
// records that they take over its extraction in ReplaceDocument.
func (s *Store) ReuseChunks(ctx context.Context, reuse map[string]string) error {
	err := s.write(ctx, "reuse chunks", func(tx *sql.Tx) error {
		for _, newID := range slices.Sorted(maps.Keys(reuse)) {
			b, err := json.Marshal(stagedContribution{ReuseOf: reuse[newID]})
			if err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `UPDATE chunks SET embedding = o.embedding, status = 'extracted', error = '',
				staged = ?1
				FROM (SELECT embedding FROM chunks WHERE id = ?2 AND status = 'extracted' AND embedding IS NOT NULL) AS o
				WHERE chunks.id = ?3 AND (SELECT replaces FROM documents WHERE id = chunks.doc_id) <> ''`,
				string(b), reuse[newID], newID)
			if err != nil {
				return fmt.Errorf("chunk %s: %w", newID, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: reuse chunks: %w", err)
	}
	return nil
}

// ReplaceDocument merges a staged document's recorded extractions, deletes the document it replaces and
// makes its chunks searchable, in one transaction. Vector searches wait while it commits and swaps the
// in-memory vectors, so none scans one version and reads the chunks of the other.
func (s *Store) ReplaceDocument(ctx context.Context, id string) error {
	// The gate before any other lock, as in every commit (graphrag.GenerationGate).
	defer s.changing()()
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	var oldChunks []int64
	var vectors map[int64][]float32
	var before, after int64
	err := s.write(ctx, "replace document", func(tx *sql.Tx) error {
		var err error
		if before, err = changeCount(ctx, tx); err != nil {
			return err
		}
		if oldChunks, vectors, err = s.replaceDocument(ctx, tx, id); err != nil {
			return err
		}
		if err := countChange(ctx, tx); err != nil {
			return err
		}
		after, err = changeCount(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: replace with document %s: %w", id, err)
	}
	s.vectors.swap(vectors, oldChunks)
	s.vectors.track(before, after)
	return nil
}

// replaceDocument is ReplaceDocument's transaction; it returns the replaced document's chunk seqs and the
// vectors of the new version's chunks.
func (s *Store) replaceDocument(ctx context.Context, tx *sql.Tx, id string) ([]int64, map[int64][]float32, error) {
	var replaces string
	found, err := scanOne(ctx, tx, `SELECT replaces FROM documents WHERE id = ?`, id, &replaces)
	if err != nil {
		return nil, nil, err
	}
	if !found {
		return nil, nil, fmt.Errorf("no document %q: %w", id, graphrag.ErrNotFound)
	}
	if err := s.mergeStaged(ctx, tx, id); err != nil {
		return nil, nil, err
	}
	var oldChunks []int64
	if replaces != "" {
		if oldChunks, err = deleteDocumentTx(ctx, tx, replaces); err != nil {
			return nil, nil, fmt.Errorf("delete the replaced document %s: %w", replaces, err)
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE documents SET replaces = '', status = 'done', error = '',
		updated_at = max(updated_at, ?) WHERE id = ?`, time.Now().UnixNano(), id)
	if err != nil {
		return nil, nil, err
	}
	vectors, err := documentVectors(ctx, tx, id, s.embedDim())
	return oldChunks, vectors, err
}

// mergeStaged merges into the graph what each staged chunk of a document recorded, in chunk order, and
// clears the records.
func (s *Store) mergeStaged(ctx context.Context, tx *sql.Tx, docID string) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, staged FROM chunks WHERE doc_id = ? AND staged IS NOT NULL
		ORDER BY ordinal`, docID)
	if err != nil {
		return err
	}
	staged := map[string]stagedContribution{}
	var order []string
	for rows.Next() {
		var id, raw string
		if err := rows.Scan(&id, &raw); err != nil {
			rows.Close()
			return err
		}
		var c stagedContribution
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			rows.Close()
			return fmt.Errorf("chunk %s: staged contribution: %w", id, err)
		}
		staged[id] = c
		order = append(order, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range order {
		x, err := stagedExtraction(ctx, tx, id, staged[id])
		if err != nil {
			return fmt.Errorf("chunk %s: %w", id, err)
		}
		plan, err := graphrag.PlanExtraction(x, s.embedDim())
		if err != nil {
			return fmt.Errorf("chunk %s: %w", id, err)
		}
		if err := applyPlan(ctx, tx, plan); err != nil {
			return fmt.Errorf("chunk %s: %w", id, err)
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE chunks SET staged = NULL WHERE doc_id = ?`, docID)
	return err
}

// stagedExtraction is the extraction a staged chunk contributes: its own, or the one of the chunk it
// reuses as the graph holds it (entities and relations without provenance; relations keep their vectors).
func stagedExtraction(ctx context.Context, tx *sql.Tx, chunkID string, c stagedContribution) (graphrag.Extraction, error) {
	if c.Extraction != nil {
		x := *c.Extraction
		x.ChunkID = chunkID
		return x, nil
	}
	x := graphrag.Extraction{ChunkID: chunkID}
	rows, err := tx.QueryContext(ctx, `SELECT e.key, e.name, e.type, e.description, e.aliases
		FROM mentions m JOIN entities e ON e.key = m.entity_key WHERE m.chunk_id = ? ORDER BY e.key`, c.ReuseOf)
	if err != nil {
		return x, err
	}
	for rows.Next() {
		var e graphrag.Entity
		var aliases string
		if err := rows.Scan(&e.Key, &e.Name, &e.Type, &e.Description, &aliases); err != nil {
			rows.Close()
			return x, err
		}
		if err := json.Unmarshal([]byte(aliases), &e.Aliases); err != nil {
			rows.Close()
			return x, fmt.Errorf("entity %q aliases: %w", e.Key, err)
		}
		x.Entities = append(x.Entities, e)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return x, err
	}
	rows, err = tx.QueryContext(ctx, `SELECT r.id, r.source, r.target, r.type, r.description, r.vals
		FROM relation_chunks rc JOIN relations r ON r.id = rc.relation_id WHERE rc.chunk_id = ? ORDER BY r.id`, c.ReuseOf)
	if err != nil {
		return x, err
	}
	defer rows.Close()
	for rows.Next() {
		var r graphrag.Relation
		var vals string
		if err := rows.Scan(&r.ID, &r.Source, &r.Target, &r.Type, &r.Description, &vals); err != nil {
			return x, err
		}
		if err := json.Unmarshal([]byte(vals), &r.Values); err != nil {
			return x, fmt.Errorf("relation %s values: %w", r.ID, err)
		}
		x.Relations = append(x.Relations, r)
	}
	return x, rows.Err()
}

// documentVectors reads the vectors of a document's chunks, by chunk seq.
func documentVectors(ctx context.Context, tx *sql.Tx, docID string, dim int) (map[int64][]float32, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, embedding FROM chunks WHERE doc_id = ? AND embedding IS NOT NULL`, docID)
	if err != nil {
		return nil, err
	}
	out := map[int64][]float32{}
	err = scanVectors(rows, dim, func(seq int64, vec []float32) { out[seq] = vec })
	return out, err
}

// scanVectors decodes rows of chunk seqs and vectors of dimension dim into put, and closes rows.
func scanVectors(rows *sql.Rows, dim int, put func(seq int64, vec []float32)) error {
	defer rows.Close()
	var blob sql.RawBytes
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq, &blob); err != nil {
			return err
		}
		vec, err := decodeVector(blob, dim)
		if err != nil {
			return fmt.Errorf("chunk %d: %w", seq, err)
		}
		put(seq, vec)
	}
	return rows.Err()
}
