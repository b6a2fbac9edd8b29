package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// RetryFailedChunks returns a document's failed chunks to embedded, reasons cleared, and counts them.
// Failed chunks always have their vector (extraction runs after embedding), so embedded is their state.
func (s *Store) RetryFailedChunks(ctx context.Context, docID string) (int, error) {
	var n int
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk {status: 'failed'})
			SET c.status = 'embedded', c.error = '' RETURN count(c)`, map[string]any{"id": docID})
		if err != nil {
			return err
		}
		n = asInt(first(records))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("neo4j: retry failed chunks of %s: %w", docID, err)
	}
	return n, nil
}
