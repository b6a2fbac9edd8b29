package neo4j

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// pathsPerHop bounds the paths one start entity expands at one hop length, so a hub entity cannot make
// a query walk its whole neighbourhood; it is at least this and at least a few times the limit.
const pathsPerHop = 500

// Neighborhood returns the relations within hops (clamped to 1..2) of the start entities, walking RELATED
// in both directions: a relation touching a start entity is hop 1, one touching an entity reached at hop 1
// is hop 2. Nearest first, then the best supported (most chunks), then by type and ID; at most limit.
func (s *Store) Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]graphrag.Edge, error) {
	s.searchMu.RLock() // reads are read-committed: a replace must not land mid-read
	defer s.searchMu.RUnlock()
	keys = uniqueInOrder(keys)
	if len(keys) == 0 || limit <= 0 {
		return nil, nil
	}
	hops = min(max(hops, 1), 2)
	var edges []graphrag.Edge
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, neighborhoodQuery(hops), map[string]any{
			"keys": keys, "limit": limit, "cap": max(pathsPerHop, 4*limit),
		})
		if err != nil {
			return err
		}
		edges = make([]graphrag.Edge, 0, len(records))
		for _, r := range records {
			e, err := edgeFrom(asMap(r.Values[0]), asInt(r.Values[1]))
			if err != nil {
				return err
			}
			edges = append(edges, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: neighborhood: %w", err)
	}
	return edges, nil
}

// neighborhoodQuery walks one branch per hop length, each a variable-length pattern bounded by LIMIT, and
// keeps each relation at its smallest hop. One pattern *1..hops under a single LIMIT would keep whatever
// paths the depth-first expansion meets first, and could drop a direct relation for a two-hop one.
func neighborhoodQuery(hops int) string {
	branches := make([]string, 0, hops)
	for h := 1; h <= hops; h++ {
		walk := "(s)"
		if h > 1 {
			walk = fmt.Sprintf("(s)-[:RELATED*%d]-()", h-1)
		}
		branches = append(branches, fmt.Sprintf("MATCH %s-[r:RELATED]-() RETURN r, %d AS hop LIMIT $cap", walk, h))
	}
	return `MATCH (s:Entity) WHERE s.key IN $keys
		CALL (s) {
			` + strings.Join(branches, "\n\t\t\tUNION ALL\n\t\t\t") + `
		}
		WITH r, min(hop) AS hop
		WITH r, hop, coalesce(r.support, 0) AS support
		ORDER BY hop, support DESC, r.type, r.id
		LIMIT $limit
		WITH r, hop, support, startNode(r) AS a, endNode(r) AS b
		RETURN r {.id, .type, .description, .values, .chunkIds, .docIds,
			source: a.key, target: b.key, sourceName: a.name, targetName: b.name} AS rel, hop
		ORDER BY hop, support DESC, r.type, r.id`
}

func edgeFrom(m map[string]any, hop int) (graphrag.Edge, error) {
	r := graphrag.Relation{
		ID:          asString(m["id"]),
		Source:      asString(m["source"]),
		Target:      asString(m["target"]),
		SourceName:  asString(m["sourceName"]),
		TargetName:  asString(m["targetName"]),
		Type:        asString(m["type"]),
		Description: asString(m["description"]),
		ChunkIDs:    union(nil, asStrings(m["chunkIds"])),
		DocIDs:      union(nil, asStrings(m["docIds"])),
		Embedding:   float32s(m["embedding"]),
	}
	if v := asString(m["values"]); v != "" {
		if err := json.Unmarshal([]byte(v), &r.Values); err != nil {
			return graphrag.Edge{}, fmt.Errorf("relation %s values: %w", r.ID, err)
		}
	}
	return graphrag.Edge{Relation: r, Hop: hop}, nil
}
