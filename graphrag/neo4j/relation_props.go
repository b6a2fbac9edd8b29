package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// What a relation keeps for the subgraph's reads, beside what it is (issue 13): every write of a relation's
// chunkIds sets r.support to their number in the same SET, so ranking the candidates of a walk reads one
// number instead of each candidate's list of chunk IDs; and every write of r.embedding sets
// r.embeddingF32 to the same vector as little-endian float32 bytes (null without a vector), which the
// subgraph returns instead of the list of doubles: Neo4j stores a byte array as it is, while it decodes a
// list of doubles value by value, which was a third of the subgraph's server time. The cosine similarity
// to the query vectors is then computed in Go. Ranking reads only r.support (a fallback to size(r.chunkIds)
// makes Neo4j read every candidate's list again): should an older Hopwise write to the same database after
// this one's Open, a relation it creates ranks as unsupported and one it changes by its count before, and
// the vector of one it creates is read from r.embedding.

// f32Bytes is a vector as a query parameter of little-endian float32 bytes, null for none.
func f32Bytes(v []float32) any {
	if len(v) == 0 {
		return nil
	}
	return graphrag.VectorBytes(v)
}

// vectorOf reads a relation's vector as the subgraph returns it: float32 bytes, or a list of numbers.
func vectorOf(v any) []float32 {
	b, ok := v.([]byte)
	if !ok {
		return float32s(v)
	}
	vec, err := graphrag.VectorFromBytes(b)
	if err != nil || len(vec) == 0 {
		return nil
	}
	return vec
}

// relationPropsBatch is how many relations prepareRelations fills in one transaction (a variable for the
// tests, which make it small).
var relationPropsBatch = 1000

// prepareRelations gives the relations of a database written before they carried r.support and
// r.embeddingF32 those properties, a batch of relations per transaction in ID order, once: the Meta node
// records that it is done (relationsPrepared). Relations written meanwhile by this version carry them
// already.
func (s *Store) prepareRelations(ctx context.Context) error {
	prepared, err := s.backfill(ctx, "relationsPrepared", relationPropsBatch,
		func(ctx context.Context, tx neo4j.ManagedTransaction, after string) (int, string, error) {
			records, err := query(ctx, tx, `MATCH ()-[r:RELATED]->() WHERE r.id > $after
				WITH r ORDER BY r.id LIMIT $batch
				RETURN r.id, r.embedding`, map[string]any{"after": after, "batch": relationPropsBatch})
			if err != nil || len(records) == 0 {
				return 0, "", err
			}
			rows := make([]map[string]any, len(records))
			for i, rec := range records {
				rows[i] = map[string]any{"id": asString(rec.Values[0]), "f32": f32Bytes(float32s(rec.Values[1]))}
			}
			err = exec(ctx, tx, `UNWIND $rows AS row
				MATCH ()-[r:RELATED {id: row.id}]->()
				SET r.support = size(r.chunkIds), r.embeddingF32 = row.f32`, map[string]any{"rows": rows})
			return len(rows), asString(rows[len(rows)-1]["id"]), err
		})
	if err != nil {
		return fmt.Errorf("neo4j: count the relations' supports: %w", err)
	}
	if prepared > 0 {
		s.logger.Info("neo4j: relations given their support counts and float32 vectors", "relations", prepared)
	}
	return nil
}
