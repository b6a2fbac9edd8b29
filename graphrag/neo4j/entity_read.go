package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// entityProjection returns an entity e with the chunks that mention it and their documents: provenance is
// read from the MENTIONS edges, so it can never disagree with them.
const entityProjection = `e {.key, .name, .type, .description, .aliases,
	chunkIds: [(c:Chunk)-[:MENTIONS]->(e) | c.id], docIds: [(c:Chunk)-[:MENTIONS]->(e) | c.docId]}`

func entityFrom(m map[string]any) graphrag.Entity {
	return graphrag.Entity{
		Key:         asString(m["key"]),
		Name:        asString(m["name"]),
		Type:        asString(m["type"]),
		Description: asString(m["description"]),
		Aliases:     union(nil, asStrings(m["aliases"])),
		ChunkIDs:    union(nil, asStrings(m["chunkIds"])),
		DocIDs:      union(nil, asStrings(m["docIds"])),
	}
}

// Entities returns the entities with these keys in the order asked, each once, with the chunks and
// documents that mention them (sorted); unknown keys are skipped.
func (s *Store) Entities(ctx context.Context, keys []string) ([]graphrag.Entity, error) {
	keys = uniqueInOrder(keys)
	if len(keys) == 0 {
		return nil, nil
	}
	var entities []graphrag.Entity
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `UNWIND range(0, size($keys) - 1) AS i
			MATCH (e:Entity {key: $keys[i]})
			RETURN `+entityProjection+` AS entity ORDER BY i`, map[string]any{"keys": keys})
		if err != nil {
			return err
		}
		entities = make([]graphrag.Entity, 0, len(records))
		for _, v := range column(records) {
			entities = append(entities, entityFrom(asMap(v)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: entities: %w", err)
	}
	return entities, nil
}

// SearchEntities finds entities whose name or aliases match the words of query through the entity
// full-text index, best first.
func (s *Store) SearchEntities(ctx context.Context, text string, k int) ([]graphrag.Entity, error) {
	s.searchMu.RLock() // reads are read-committed: a replace must not land mid-search
	defer s.searchMu.RUnlock()
	q := luceneQuery(text)
	if q == "" || k <= 0 {
		return nil, nil
	}
	var entities []graphrag.Entity
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node AS e, score
			RETURN `+entityProjection+` AS entity ORDER BY score DESC, e.key LIMIT $k`,
			map[string]any{"index": entityNameIndex, "query": q, "k": k})
		if err != nil {
			return err
		}
		entities = make([]graphrag.Entity, 0, len(records))
		for _, v := range column(records) {
			entities = append(entities, entityFrom(asMap(v)))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: search entities: %w", err)
	}
	return entities, nil
}

// uniqueInOrder returns values without repeats or empty strings, in first-seen order.
func uniqueInOrder(values []string) []string {
	seen := make(map[string]bool, len(values))
	out := make([]string, 0, len(values))
	for _, v := range values {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
