package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// Subgraph reads what a walk from the start entities and chunks reaches (see graphrag.GraphStore): the
// start chunks' entities, the best supported relations touching those or the start entities, and the
// mentions of every entity met.
func (s *Store) Subgraph(ctx context.Context, keys, chunkIDs []string, perEntity, maxRelations int) (graphrag.Subgraph, error) {
	sg := graphrag.Subgraph{Mentions: map[string][]string{}, Mentioned: map[string]int{}, ChunkEntities: map[string][]string{}}
	chunkIDs = unique(chunkIDs)
	for lo := 0; lo < len(chunkIDs); lo += batchSize {
		part := chunkIDs[lo:min(lo+batchSize, len(chunkIDs))]
		err := eachPair(ctx, s.reader, `SELECT chunk_id, entity_key FROM mentions WHERE chunk_id IN (`+
			placeholders(len(part))+`) ORDER BY chunk_id, entity_key`, stringArgs(part), func(chunkID, key string) {
			sg.ChunkEntities[chunkID] = append(sg.ChunkEntities[chunkID], key)
			keys = append(keys, key)
		})
		if err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph: %w", err)
		}
	}
	keys = unique(keys)
	if len(keys) == 0 {
		return sg, nil
	}
	if maxRelations > 0 {
		touching, err := s.relationsTouching(ctx, keys)
		if err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph: %w", err)
		}
		edges := make([]graphrag.Edge, 0, min(len(touching), maxRelations))
		for _, r := range touching[:min(len(touching), maxRelations)] {
			edges = append(edges, graphrag.Edge{Relation: r.Relation, Hop: 1})
		}
		if err := s.fillEdges(ctx, edges); err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph: %w", err)
		}
		for _, e := range edges {
			sg.Relations = append(sg.Relations, e.Relation)
			keys = append(keys, e.Source, e.Target)
		}
		keys = unique(keys)
	}
	for lo := 0; lo < len(keys); lo += batchSize {
		part := keys[lo:min(lo+batchSize, len(keys))]
		rows, err := s.reader.QueryContext(ctx, `SELECT entity_key, chunk_id, n FROM (
			SELECT entity_key, chunk_id, count(*) OVER (PARTITION BY entity_key) AS n,
				row_number() OVER (PARTITION BY entity_key ORDER BY chunk_id) AS i
			FROM mentions WHERE entity_key IN (`+placeholders(len(part))+`)) WHERE i <= ?`,
			append(stringArgs(part), max(perEntity, 0))...)
		if err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph mentions: %w", err)
		}
		for rows.Next() {
			var key, chunkID string
			var n int
			if err := rows.Scan(&key, &chunkID, &n); err != nil {
				rows.Close()
				return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph mentions: %w", err)
			}
			sg.Mentions[key] = append(sg.Mentions[key], chunkID)
			sg.Mentioned[key] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph mentions: %w", err)
		}
	}
	return sg, nil
}

// eachPair calls add for every two-column string row of query.
func eachPair(ctx context.Context, q queryer, query string, args []any, add func(a, b string)) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		add(a, b)
	}
	return rows.Err()
}
