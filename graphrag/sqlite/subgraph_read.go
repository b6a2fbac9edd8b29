package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
	if len(chunkIDs) > 0 {
		err := eachPair(ctx, compiledReader{s}, chunkEntitiesQuery, []any{jsonList(chunkIDs)}, func(chunkID, key string) {
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

// mentionsOf sets each entity's mention count (kept in its row by triggers) and its first perEntity
// chunks, all in one statement (mentionsQuery): one bounded index read per entity (a window over every
// mention of a hub entity cost more than all the rest of a walk, and a statement per entity most of a
// subgraph).
func (s *Store) mentionsOf(ctx context.Context, keys []string, perEntity int, sg *graphrag.Subgraph) error {
	rows, err := s.readStmts.query(ctx, s.reader, mentionsQuery(perEntity), jsonList(keys))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var n int
		var chunks sql.RawBytes
		if err := rows.Scan(&key, &n, &chunks); err != nil {
			return err
		}
		sg.Mentioned[key] = n
		if perEntity <= 0 {
			continue
		}
		ids, err := jsonStrings(chunks)
		if err != nil {
			return fmt.Errorf("entity %q mentions: %w", key, err)
		}
		if len(ids) > 0 {
			sg.Mentions[key] = ids
		}
	}
	return rows.Err()
}

// subgraphEdges reads the relations touching a start entity and those joining two entities near (the
// entities the start chunks mention), the best supported first (then by type and ID), at most max, as
// edges of hop 1 without their ends' names and provenance (fillEdges reads those).
func (s *Store) subgraphEdges(ctx context.Context, keys, near []string, max int) ([]graphrag.Edge, error) {
	near = near[:min(len(near), graphrag.MaxNear)]
	if max <= 0 {
		return nil, nil
	}
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
	touch, small := notHub(keys), notHub(near)
	if len(small) == 0 || len(near) == 0 {
		small, near = nil, nil
	}
	if len(touch) == 0 && len(small) == 0 {
		return nil, nil
	}
	rels, err := s.queryRelations(ctx, rankedEdgesQuery(max), jsonList(touch), jsonList(small), jsonList(near))
	if err != nil {
		return nil, err
	}
	edges := make([]graphrag.Edge, len(rels))
	for i, r := range rels {
		edges[i] = graphrag.Edge{Relation: r.Relation, Hop: 1}
	}
	return edges, nil
}

// hubsAmong returns the keys of the entities with more than graphrag.MaxHubRelations relations (hubsQuery).
func (s *Store) hubsAmong(ctx context.Context, keys []string) (map[string]bool, error) {
	hub := map[string]bool{}
	if len(keys) == 0 {
		return hub, nil
	}
	hubs, err := queryStrings(ctx, compiledReader{s}, hubsQuery, jsonList(keys))
	if err != nil {
		return nil, err
	}
	for _, k := range hubs {
		hub[k] = true
	}
	return hub, nil
}

// The statements of a subgraph, compiled on the reader pool at Open (graphReadQueries). Lists of keys and
// IDs are bound as one JSON array (json_each), so that a statement's text does not depend on a list's
// length; the bounds are written in the text, because SQLite compiles a statement again at every run
// whose LIMIT is a bound parameter (it plans with the bound value).
//
// chunkEntitiesQuery reads the entities each chunk of a list mentions.
const chunkEntitiesQuery = `SELECT chunk_id, entity_key FROM mentions
	WHERE chunk_id IN (SELECT value FROM json_each(?)) ORDER BY chunk_id, entity_key`

// hubsQuery keeps the keys of a list with more than graphrag.MaxHubRelations relations, from the counts
// kept in the entities' rows (migration 17; counting a hub's thousands of relations, or even 201 of them,
// was most of a subgraph's reads).
var hubsQuery = fmt.Sprintf(`SELECT key FROM entities
	WHERE key IN (SELECT value FROM json_each(?)) AND relation_count > %d`, graphrag.MaxHubRelations)

// rankedEdgesQuery reads the relations with an end among the first list (touch) or joining one of the
// second (small) to one of the third (near), the best supported first (then by type and ID), at most
// max, rows (vectors included) read for those kept alone. The candidates are ranked from the ends'
// indexes alone (relations_source_ranked and relations_target_ranked hold the other end, support, type
// and ID); a relation joining small to near is found by reading the relations of each small entity (at
// most graphrag.MaxHubRelations) and looking its other end up among near (+, so that the planner does
// not seek each pair of the two lists instead).
func rankedEdgesQuery(max int) string {
	return fmt.Sprintf(`WITH t(key) AS (SELECT value FROM json_each(?1)),
		s(key) AS (SELECT value FROM json_each(?2)),
		n(key) AS (SELECT value FROM json_each(?3)),
		ranked AS (SELECT rid, id, type, support FROM (
			SELECT rowid AS rid, id, type, support FROM relations WHERE source IN t
			UNION SELECT rowid, id, type, support FROM relations WHERE target IN t
			UNION SELECT rowid, id, type, support FROM relations WHERE source IN s AND +target IN n
			UNION SELECT rowid, id, type, support FROM relations WHERE target IN s AND +source IN n)
			ORDER BY support DESC, type, id LIMIT %d)
		SELECT r.id, r.source, r.target, r.type, r.description, r.vals, r.embedding, r.support, r.rowid
		FROM ranked k JOIN relations r ON r.rowid = k.rid ORDER BY k.support DESC, k.type, k.id`, max)
}

// mentionsQuery reads, for each entity of a list mentioned at all, its mention count and its first
// perEntity chunks in chunk order, as a JSON array (one row an entity: a row a chunk cost twice as much).
func mentionsQuery(perEntity int) string {
	return fmt.Sprintf(`SELECT e.key, e.mention_count, (SELECT json_group_array(chunk_id ORDER BY chunk_id) FROM
			(SELECT chunk_id FROM mentions WHERE entity_key = e.key ORDER BY chunk_id LIMIT %d))
		FROM entities e WHERE e.key IN (SELECT value FROM json_each(?)) AND e.mention_count > 0`, max(perEntity, 0))
}

// graphReadQueries are the statements of the graph reads that Open compiles on the reader pool: those of
// fillEdges and readEntityRows, and of Subgraph with the walk's bounds (graphrag.WalkRelations, graphrag.WalkPerEntity);
// other bounds run uncompiled.
func graphReadQueries() []string {
	return []string{chunkEntitiesQuery, hubsQuery, rankedEdgesQuery(graphrag.WalkRelations),
		mentionsQuery(graphrag.WalkPerEntity), entityNamesQuery, provenanceQuery, entityRowsQuery}
}

// jsonList is values as one JSON array, which json_each reads back as they are (keys and IDs are valid
// UTF-8: NormalizeKey writes runes, and IDs are hex).
func jsonList(values []string) string {
	if values == nil {
		return "[]"
	}
	b, err := json.Marshal(values)
	if err != nil { // a []string always marshals
		panic(err)
	}
	return string(b)
}

// jsonStrings decodes a JSON array of strings as SQLite writes one (json_group_array: no white space):
// split at the quotes between elements when no element holds an escape, decoded by encoding/json
// otherwise.
func jsonStrings(b []byte) ([]string, error) {
	if n := len(b); n >= 4 && b[0] == '[' && b[1] == '"' && b[n-2] == '"' && b[n-1] == ']' && !bytes.ContainsRune(b, '\\') {
		return strings.Split(string(b[2:n-2]), `","`), nil
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// compiledReader is the reader pool as a queryer that runs the statements compiled at Open compiled.
type compiledReader struct{ s *Store }

func (c compiledReader) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.s.readStmts.query(ctx, c.s.reader, query, args...)
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
