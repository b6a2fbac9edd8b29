package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// linkProjection is an entity e without its provenance.
const linkProjection = `e {.key, .name, .type, .description, .aliases}`

// LinkCandidates reads the entities with these keys and those the entity full-text index finds for the
// words of query (as SearchEntities ranks them), in one statement and without their mentions: a hub's
// are thousands, and linking needs none.
func (s *Store) LinkCandidates(ctx context.Context, keys []string, text string, k int) (byKey, byWords []graphrag.Entity, err error) {
	s.searchMu.RLock() // reads are read-committed: a replace must not land mid-search
	defer s.searchMu.RUnlock()
	params := map[string]any{"keys": uniqueInOrder(keys), "index": entityNameIndex, "query": luceneQuery(text), "k": k}
	byWordsQuery := `CALL db.index.fulltext.queryNodes($index, $query, {limit: $k}) YIELD node AS e, score
			WITH e, score ORDER BY score DESC, e.key LIMIT $k
			RETURN collect(` + linkProjection + `) AS found`
	if params["query"] == "" || k <= 0 {
		byWordsQuery = `RETURN [] AS found`
	}
	records, err := s.readRecords(ctx, `CALL () {
			UNWIND range(0, size($keys) - 1) AS i
			MATCH (e:Entity {key: $keys[i]})
			WITH i, e ORDER BY i
			RETURN collect(`+linkProjection+`) AS exact
		}
		CALL () {
			`+byWordsQuery+`
		}
		RETURN exact, found`, params)
	if err != nil {
		return nil, nil, fmt.Errorf("neo4j: link candidates: %w", err)
	}
	if len(records) == 0 {
		return nil, nil, nil
	}
	entities := func(v any) []graphrag.Entity {
		list, _ := v.([]any)
		out := make([]graphrag.Entity, 0, len(list))
		for _, m := range list {
			out = append(out, entityFrom(asMap(m)))
		}
		return out
	}
	return entities(records[0].Values[0]), entities(records[0].Values[1]), nil
}
