package sqlite

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"golang.org/x/sync/errgroup"
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
	var edges []graphrag.Edge
	if maxRelations > 0 {
		var near []string
		for _, ks := range sg.ChunkEntities {
			near = append(near, ks...)
		}
		var err error
		if edges, err = s.subgraphEdges(ctx, start, unique(near), maxRelations); err != nil {
			return graphrag.Subgraph{}, fmt.Errorf("sqlite: subgraph: %w", err)
		}
		for _, e := range edges {
			keys = append(keys, e.Source, e.Target)
		}
		keys = unique(keys)
	}
	// The relations' end names and provenance are read while the mentions of every entity met are.
	var g errgroup.Group
	g.Go(func() error {
		if err := s.fillEdges(ctx, edges); err != nil {
			return fmt.Errorf("sqlite: subgraph: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		if err := s.mentionsOf(ctx, keys, perEntity, &sg); err != nil {
			return fmt.Errorf("sqlite: subgraph mentions: %w", err)
		}
		return nil
	})
	if err := g.Wait(); err != nil {
		return graphrag.Subgraph{}, err
	}
	for _, e := range edges {
		r := e.Relation
		sg.Near[r.ID] = graphrag.BestCosine(r.Embedding, q.Vectors)
		r.Embedding = nil // compared here; not carried on, as Neo4j does not send it
		sg.Relations = append(sg.Relations, r)
	}
	return sg, nil
}

// mentionsOf sets each entity's mention count (kept in its row by triggers) and its first
// perEntity chunks: all the mentions of the entities mentioned no more often, read together, and one
// bounded index read per hub entity (a window over every mention of a hub entity cost more than all the
// rest of a walk, and a statement per entity, most of them mentioned once or twice, most of a subgraph).
func (s *Store) mentionsOf(ctx context.Context, keys []string, perEntity int, sg *graphrag.Subgraph) error {
	for lo := 0; lo < len(keys); lo += batchSize {
		part := keys[lo:min(lo+batchSize, len(keys))]
		rows, err := s.reader.QueryContext(ctx, `SELECT key, mention_count FROM entities WHERE key IN (`+
			placeholders(len(part))+`) AND mention_count > 0`, stringArgs(part)...)
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

// subgraphEdges reads the relations touching a start entity and those joining two entities near (the
// entities the start chunks mention), the best supported first (then by type and ID), at most max, as
// edges of hop 1 without their ends' names and provenance (fillEdges reads those).
func (s *Store) subgraphEdges(ctx context.Context, keys, near []string, max int) ([]graphrag.Edge, error) {
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
	// a relation joining two hubs is not read, as in Neo4j
	rowids, err := s.rankedRelations(ctx, notHub(keys), notHub(near), near, max)
	if err != nil {
		return nil, err
	}
	rels, err := s.relationRows(ctx, rowids)
	if err != nil {
		return nil, err
	}
	edges := make([]graphrag.Edge, len(rels))
	for i, r := range rels {
		edges[i] = graphrag.Edge{Relation: r, Hop: 1}
	}
	return edges, nil
}

// rankedRelations returns the rowids of the relations with an end among touch or joining one of small to
// one of near, the best supported first (then by type and ID), at most max. It reads the ends' indexes
// alone (relations_source_ranked and relations_target_ranked hold the other end, support, type and ID).
func (s *Store) rankedRelations(ctx context.Context, touch, small, near []string, max int) ([]int64, error) {
	const sel = `SELECT rowid AS rid, id, type, support FROM relations WHERE `
	var parts []string
	var args []any
	if len(touch) > 0 {
		in, a := placeholders(len(touch)), stringArgs(touch)
		parts = append(parts, sel+`source IN (`+in+`)`, sel+`target IN (`+in+`)`)
		args = slices.Concat(args, a, a)
	}
	if len(small) > 0 && len(near) > 0 {
		inSmall, aSmall := placeholders(len(small)), stringArgs(small)
		in, a := placeholders(len(near)), stringArgs(near)
		parts = append(parts, sel+`source IN (`+inSmall+`) AND target IN (`+in+`)`,
			sel+`target IN (`+inSmall+`) AND source IN (`+in+`)`)
		args = slices.Concat(args, aSmall, a, aSmall, a)
	}
	if len(parts) == 0 || max <= 0 {
		return nil, nil
	}
	return queryInts(ctx, s.reader, `SELECT rid FROM (`+strings.Join(parts, ` UNION `)+`)
		ORDER BY support DESC, type, id LIMIT ?`, append(args, max)...)
}

// relationRows reads the relations of these rowids, with their vectors, in the order given; a relation
// deleted since its rowid was read is left out.
func (s *Store) relationRows(ctx context.Context, rowids []int64) ([]graphrag.Relation, error) {
	byRow := make(map[int64]graphrag.Relation, len(rowids))
	for lo := 0; lo < len(rowids); lo += batchSize {
		part := rowids[lo:min(lo+batchSize, len(rowids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		found, err := s.readRelations(ctx, `r.rowid IN (`+placeholders(len(part))+`)`, args)
		if err != nil {
			return nil, err
		}
		for _, r := range found {
			byRow[r.rowid] = r.Relation
		}
	}
	out := make([]graphrag.Relation, 0, len(rowids))
	for _, id := range rowids {
		if r, ok := byRow[id]; ok {
			out = append(out, r)
		}
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
