package neo4j

import (
	"context"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Batch sizes of the UNWIND writes: large enough to save round trips, small enough that one transaction
// stays a few megabytes.
const (
	chunkBatch  = 500
	vectorBatch = 256
)

// PutChunks stores the chunks of a document (status pending, no embedding), linked to it by HAS_CHUNK and
// to each other in order by NEXT_CHUNK. Chunks with an existing ID keep their state, so a resumed job can
// call it again. Each batch is its own transaction; repeating one is harmless.
func (s *Store) PutChunks(ctx context.Context, docID string, chunks []graphrag.Chunk) error {
	for batch := range slices.Chunk(chunks, chunkBatch) {
		rows := make([]map[string]any, len(batch))
		for i, c := range batch {
			section := c.Section
			if section == nil {
				section = []string{}
			}
			rows[i] = map[string]any{"id": c.ID, "ordinal": c.Ordinal, "section": section, "text": c.Text, "tokens": c.Tokens, "page": c.Page}
		}
		if err := s.write(ctx, putChunks(docID, rows)); err != nil {
			return fmt.Errorf("neo4j: put chunks of %s: %w", docID, err)
		}
	}
	return nil
}

func putChunks(docID string, rows []map[string]any) txWork {
	return func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		params := map[string]any{"docId": docID, "rows": rows}
		records, err := query(ctx, tx, `MATCH (d:Document {id: $docId})
			UNWIND $rows AS row
			MERGE (c:Chunk {id: row.id})
			ON CREATE SET c.docId = $docId, c.ordinal = row.ordinal, c.page = row.page, c.section = row.section, c.text = row.text,
				c.tokens = row.tokens, c.status = 'pending', c.error = '',
				c.staged = CASE WHEN coalesce(d.replaces, '') <> '' THEN true END
			MERGE (d)-[:HAS_CHUNK]->(c)
			RETURN count(c)`, params)
		if err != nil {
			return err
		}
		if len(records) == 0 || asInt(first(records)) == 0 && len(rows) > 0 {
			return fmt.Errorf("document %s: %w", docID, graphrag.ErrNotFound)
		}
		// Link each chunk to its neighbours by ordinal, which may have come in another batch.
		return exec(ctx, tx, `UNWIND $rows AS row
			MATCH (c:Chunk {id: row.id})
			CALL (c) {
				MATCH (next:Chunk {docId: c.docId, ordinal: c.ordinal + 1})
				MERGE (c)-[:NEXT_CHUNK]->(next)
			}
			CALL (c) {
				MATCH (prev:Chunk {docId: c.docId, ordinal: c.ordinal - 1})
				MERGE (prev)-[:NEXT_CHUNK]->(c)
			}`, params)
	}
}

// SetEmbeddings stores vectors by chunk ID, flags the chunks embedded (so counts never read a vector)
// and moves pending chunks to status embedded; chunks whose extraction has
// already finished keep that status. Unknown IDs are skipped. Vectors of another dimension than the
// store's are refused with ErrDimension before anything is written.
func (s *Store) SetEmbeddings(ctx context.Context, vectors map[string][]float32) error {
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	ids := make([]string, 0, len(vectors))
	for id, vec := range vectors {
		if len(vec) != s.embedDim() {
			return fmt.Errorf("neo4j: set embeddings: chunk %s has %d dimensions, the index %d: %w",
				id, len(vec), s.embedDim(), graphrag.ErrDimension)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for batch := range slices.Chunk(ids, vectorBatch) {
		rows := make([]map[string]any, len(batch))
		for i, id := range batch {
			rows[i] = map[string]any{"id": id, "vec": float64s(vectors[id])}
		}
		err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			if err := s.checkSlot(ctx, tx); err != nil {
				return err
			}
			return exec(ctx, tx, `UNWIND $rows AS row
				MATCH (c:Chunk {id: row.id})
				CALL db.create.setNodeVectorProperty(c, $prop, row.vec)
				SET c.embedded = true,
					c.status = CASE c.status WHEN 'pending' THEN 'embedded' ELSE c.status END`,
				map[string]any{"rows": rows, "prop": s.space.Load().property()})
		})
		if err != nil {
			return fmt.Errorf("neo4j: set embeddings: %w", err)
		}
		s.vectorsWritten()
	}
	return nil
}

// float64s converts a vector to the type the driver packs without reflection.
func float64s(vec []float32) []float64 {
	out := make([]float64, len(vec))
	for i, x := range vec {
		out[i] = float64(x)
	}
	return out
}

// float32s reads a list of numbers a record holds as a vector; nil for anything else.
func float32s(v any) []float32 {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	out := make([]float32, len(list))
	for i, x := range list {
		f, ok := x.(float64)
		if !ok {
			return nil
		}
		out[i] = float32(f)
	}
	return out
}
