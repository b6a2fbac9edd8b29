package neo4j

import (
	"context"
	"errors"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Stats counts what the database holds; Embedded counts chunks with a vector. The label and type counts
// come from Neo4j's count store, Embedded from the index on the chunks' embedded flag.
func (s *Store) Stats(ctx context.Context) (graphrag.Stats, error) {
	var st graphrag.Stats
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `RETURN
			COUNT { (:Document) } AS documents,
			COUNT { (:Chunk) } AS chunks,
			COUNT { (c:Chunk) WHERE c.embedded } AS embedded,
			COUNT { (:Entity) } AS entities,
			COUNT { ()-[:RELATED]->() } AS relations,
			COUNT { ()-[:MENTIONS]->() } AS mentions`, nil)
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return errors.New("no result")
		}
		v := records[0].Values
		st = graphrag.Stats{
			Documents: asInt(v[0]), Chunks: asInt(v[1]), Embedded: asInt(v[2]),
			Entities: asInt(v[3]), Relations: asInt(v[4]), Mentions: asInt(v[5]),
		}
		return nil
	})
	if err != nil {
		return graphrag.Stats{}, fmt.Errorf("neo4j: stats: %w", err)
	}
	return st, nil
}
