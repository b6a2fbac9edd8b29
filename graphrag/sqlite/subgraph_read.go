package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Subgraph reads what a walk from the start entities and chunks reaches (see graphrag.GraphStore): the
// start chunks' entities, the best supported relations touching those or the start entities, and the
// mentions of every entity met.
func (s *Store) Subgraph(ctx context.Context, q graphrag.SubgraphQuery) (graphrag.Subgraph, error) {
	keys, chunkIDs, perEntity, maxRelations := q.Keys, q.ChunkIDs, q.PerEntity, q.MaxRelations
	sg := graphrag.Subgraph{Mentions: map[string][]string{}, Mentioned: map[string]int{}, ChunkEntities: map[string][]string{},
		Near: map[string]float64{}}
	chunkIDs = unique(chunkIDs)
	start := unique(keys)
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
		var near []string
		for _, ks := range sg.ChunkEntities {
			near = append(near, ks...)
		}
		rels, err := s.subgraphRelations(ctx, start, unique(near), maxRelations)
		if err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph: %w", err)
		}
		for _, r := range rels {
			sg.Near[r.ID] = graphrag.BestCosine(r.Embedding, q.Vectors)
			r.Embedding = nil // compared here; not carried on, as Neo4j does not send it
			sg.Relations = append(sg.Relations, r)
			keys = append(keys, r.Source, r.Target)
		}
		keys = unique(keys)
	}
	if err := s.mentionsOf(ctx, keys, perEntity, &sg); err != nil {
		return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph mentions: %w", err)
	}
	return sg, nil
}

// mentionsOf sets each entity's mention count (one grouped count over the mentions index) and its first
// perEntity chunks: all the mentions of the entities mentioned no more often, read together, and one
// bounded index read per hub entity (a window over every mention of a hub entity cost more than all the
// rest of a walk, and a statement per entity, most of them mentioned once or twice, most of a subgraph).
func (s *Store) mentionsOf(ctx context.Context, keys []string, perEntity int, sg *graphrag.Subgraph) error {
	for lo := 0; lo < len(keys); lo += batchSize {
		part := keys[lo:min(lo+batchSize, len(keys))]
		rows, err := s.reader.QueryContext(ctx, `SELECT entity_key, count(*) FROM mentions WHERE entity_key IN (`+
			placeholders(len(part))+`) GROUP BY entity_key`, stringArgs(part)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var key string
			var n int
			if err := rows.Scan(&key, &n); err != nil {
				rows.Close()
				return err
			}
			sg.Mentioned[key] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	if perEntity <= 0 {
		return nil
	}
	var few, hubs []string
	for _, key := range keys {
		switch n := sg.Mentioned[key]; {
		case n == 0:
		case n <= perEntity:
			few = append(few, key)
		default:
			hubs = append(hubs, key)
		}
	}
	for lo := 0; lo < len(few); lo += batchSize {
		part := few[lo:min(lo+batchSize, len(few))]
		err := eachPair(ctx, s.reader, `SELECT entity_key, chunk_id FROM mentions WHERE entity_key IN (`+
			placeholders(len(part))+`) ORDER BY entity_key, chunk_id`, stringArgs(part), func(key, chunkID string) {
			sg.Mentions[key] = append(sg.Mentions[key], chunkID)
		})
		if err != nil {
			return err
		}
	}
	if len(hubs) == 0 {
		return nil
	}
	conn, err := s.reader.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	stmt, err := conn.PrepareContext(ctx, `SELECT chunk_id FROM mentions WHERE entity_key = ? ORDER BY chunk_id LIMIT ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, key := range hubs {
		rows, err := stmt.QueryContext(ctx, key, perEntity)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			sg.Mentions[key] = append(sg.Mentions[key], id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// subgraphRelations reads the relations touching a start entity and those joining two entities near (the
// entities the start chunks mention), the best supported first (then by type and ID), at most max, with
// their ends' names and provenance.
func (s *Store) subgraphRelations(ctx context.Context, keys, near []string, max int) ([]graphrag.Relation, error) {
	near = near[:min(len(near), graphrag.MaxNear)]
	hub, err := s.hubsAmong(ctx, unique(append(append([]string(nil), keys...), near...)))
	if err != nil {
		return nil, err
	}
	notHub := func(keys []string) []string {
		out := make([]string, 0, len(keys))
		for _, k := range keys {
			if !hub[k] {
				out = append(out, k)
			}
		}
		return out
	}
	touching, err := s.relationsTouching(ctx, notHub(keys))
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, r := range touching {
		ids[r.ID] = true
	}
	small := notHub(near) // a relation joining two hubs is not read, as in Neo4j
	if len(small) > 0 {
		// Found by rows of the ends' indexes alone (a relation's row, with its vector, is read only when it
		// joins two of them): testing the other end of every relation of every small entity read each row.
		in, args := placeholders(len(near)), stringArgs(near)
		inSmall, argsSmall := placeholders(len(small)), stringArgs(small)
		between, err := s.readRelations(ctx, `r.rowid IN (SELECT rowid FROM relations WHERE source IN (`+inSmall+`)
				INTERSECT SELECT rowid FROM relations WHERE target IN (`+in+`)) OR
			r.rowid IN (SELECT rowid FROM relations WHERE target IN (`+inSmall+`)
				INTERSECT SELECT rowid FROM relations WHERE source IN (`+in+`))`,
			slices.Concat(argsSmall, args, argsSmall, args))
		if err != nil {
			return nil, err
		}
		for _, r := range between {
			if !ids[r.ID] {
				ids[r.ID] = true
				touching = append(touching, r)
			}
		}
	}
	sortSupported(touching)
	edges := make([]graphrag.Edge, 0, min(len(touching), max))
	for _, r := range touching[:min(len(touching), max)] {
		edges = append(edges, graphrag.Edge{Relation: r.Relation, Hop: 1})
	}
	if err := s.fillEdges(ctx, edges); err != nil {
		return nil, err
	}
	out := make([]graphrag.Relation, len(edges))
	for i, e := range edges {
		out[i] = e.Relation
	}
	return out, nil
}

// hubsAmong returns the keys of the entities with more than graphrag.MaxHubRelations relations. Each
// end's relations are counted up to one more than that (an index read bounded per key): counting all of a
// hub's thousands was most of a subgraph's reads.
func (s *Store) hubsAmong(ctx context.Context, keys []string) (map[string]bool, error) {
	hub := map[string]bool{}
	for lo := 0; lo < len(keys); lo += batchSize {
		part := keys[lo:min(lo+batchSize, len(keys))]
		hubs, err := queryStrings(ctx, s.reader, `WITH k(key) AS (VALUES `+strings.TrimSuffix(strings.Repeat("(?),", len(part)), ",")+`)
			SELECT key FROM k
			WHERE (SELECT count(*) FROM (SELECT 1 FROM relations WHERE source = k.key LIMIT ?)) +
				(SELECT count(*) FROM (SELECT 1 FROM relations WHERE target = k.key LIMIT ?)) > ?`,
			append(stringArgs(part), graphrag.MaxHubRelations+1, graphrag.MaxHubRelations+1, graphrag.MaxHubRelations)...)
		if err != nil {
			return nil, err
		}
		for _, k := range hubs {
			hub[k] = true
		}
	}
	return hub, nil
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
