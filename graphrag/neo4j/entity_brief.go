package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// entityBriefProjection is entityProjection without the provenance, which grows with the corpus.
const entityBriefProjection = `e {.key, .name, .type, .description, .aliases}`

// EntityBriefs reads the entities of keys as Entities does without their provenance (a hub entity of 100k
// passages has 100k mentions): ChunkIDs is empty and DocIDs holds those of docs that mention the entity.
// Entity resolution compares each passage's names with the graph's this way.
func (s *Store) EntityBriefs(ctx context.Context, keys, docs []string) ([]graphrag.Entity, error) {
	keys = uniqueInOrder(keys)
	if len(keys) == 0 {
		return nil, nil
	}
	var out []graphrag.Entity
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		out, err = s.briefs(ctx, tx, `UNWIND range(0, size($keys) - 1) AS i
			MATCH (e:Entity {key: $keys[i]})
			RETURN `+entityBriefProjection+` AS entity ORDER BY i`, map[string]any{"keys": keys}, docs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: entity briefs: %w", err)
	}
	return out, nil
}

// SearchEntityBriefs finds entities as SearchEntities does and reads them as EntityBriefs does.
func (s *Store) SearchEntityBriefs(ctx context.Context, text string, k int, docs []string) ([]graphrag.Entity, error) {
	s.searchMu.RLock() // reads are read-committed: a replace must not land mid-search
	defer s.searchMu.RUnlock()
	q := luceneQuery(text)
	if q == "" || k <= 0 {
		return nil, nil
	}
	var out []graphrag.Entity
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		var err error
		out, err = s.briefs(ctx, tx, `CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node AS e, score
			RETURN `+entityBriefProjection+` AS entity ORDER BY score DESC, e.key LIMIT $k`,
			map[string]any{"index": entityNameIndex, "query": q, "k": k}, docs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: search entity briefs: %w", err)
	}
	return out, nil
}

// briefs runs a statement returning entity briefs and sets the DocIDs of those docs mention, found from the
// documents' chunks (few) rather than through the entities' mentions (many).
func (s *Store) briefs(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any, docs []string) ([]graphrag.Entity, error) {
	records, err := query(ctx, tx, cypher, params)
	if err != nil {
		return nil, err
	}
	out := make([]graphrag.Entity, 0, len(records))
	at := map[string]int{}
	for _, v := range column(records) {
		e := entityFrom(asMap(v))
		at[e.Key] = len(out)
		out = append(out, e)
	}
	if docs = uniqueInOrder(docs); len(docs) == 0 || len(out) == 0 {
		return out, nil
	}
	keys := make([]string, len(out))
	for i, e := range out {
		keys[i] = e.Key
	}
	records, err = query(ctx, tx, `MATCH (c:Chunk) WHERE c.docId IN $docs
		MATCH (c)-[:MENTIONS]->(e:Entity) WHERE e.key IN $keys
		RETURN DISTINCT e.key AS key, c.docId AS doc`, map[string]any{"docs": docs, "keys": keys})
	if err != nil {
		return nil, err
	}
	for _, r := range records {
		i := at[asString(r.Values[0])]
		out[i].DocIDs = union(out[i].DocIDs, []string{asString(r.Values[1])})
	}
	return out, nil
}

// NeighbourNames returns the names of both ends of the relations touching the entity of key, the best
// supported first as Neighborhood orders them, at most limit relations: what the entity is found with,
// without the relations' vectors and provenance.
func (s *Store) NeighbourNames(ctx context.Context, key string, limit int) ([]string, error) {
	s.searchMu.RLock()
	defer s.searchMu.RUnlock()
	if limit <= 0 {
		return nil, nil
	}
	var out []string
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (s:Entity {key: $key})-[r:RELATED]-()
			WITH DISTINCT r LIMIT $cap
			WITH r, coalesce(r.support, 0) AS support ORDER BY support DESC, r.type, r.id LIMIT $limit
			RETURN startNode(r).name AS a, endNode(r).name AS b ORDER BY support DESC, r.type, r.id`,
			map[string]any{"key": key, "limit": limit, "cap": max(pathsPerHop, 4*limit)})
		if err != nil {
			return err
		}
		for _, r := range records {
			out = append(out, asString(r.Values[0]), asString(r.Values[1]))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: neighbour names of %q: %w", key, err)
	}
	return out, nil
}
