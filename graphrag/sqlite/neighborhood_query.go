package sqlite

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// Neighborhood walks relations in both directions from the start entities, breadth first, and returns
// those within hops (clamped to 1..2): every relation touching a start entity is hop 1, every further
// relation touching an entity reached at hop 1 is hop 2. Within a hop, relations supported by more
// chunks come first. At most limit edges are returned, each with its ends' names and its provenance.
func (s *Store) Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]graphrag.Edge, error) {
	hops = min(max(hops, 1), 2)
	frontier := unique(keys)
	if len(frontier) == 0 || limit <= 0 {
		return nil, nil
	}
	visited := make(map[string]bool, len(frontier))
	for _, k := range frontier {
		visited[k] = true
	}
	seen := map[string]bool{}
	var edges []graphrag.Edge
	for hop := 1; hop <= hops && len(frontier) > 0 && len(edges) < limit; hop++ {
		level, err := s.relationsTouching(ctx, frontier)
		if err != nil {
			return nil, fmt.Errorf("sqlite: neighborhood: %w", err)
		}
		frontier = nil
		for _, r := range level {
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			if len(edges) < limit {
				edges = append(edges, graphrag.Edge{Relation: r.Relation, Hop: hop})
			}
			for _, k := range []string{r.Source, r.Target} {
				if !visited[k] {
					visited[k] = true
					frontier = append(frontier, k)
				}
			}
		}
	}
	if err := s.fillEdges(ctx, edges); err != nil {
		return nil, fmt.Errorf("sqlite: neighborhood: %w", err)
	}
	return edges, nil
}

// supported is a relation with the number of chunks that support it and its rowid.
type supported struct {
	graphrag.Relation
	support int
	rowid   int64
}

// relationsTouching returns the relations with an end among keys, best supported first.
func (s *Store) relationsTouching(ctx context.Context, keys []string) ([]supported, error) {
	var out []supported
	for lo := 0; lo < len(keys); lo += batchSize {
		part := keys[lo:min(lo+batchSize, len(keys))]
		in := placeholders(len(part))
		args := stringArgs(part)
		found, err := s.readRelations(ctx, `r.source IN (`+in+`) OR r.target IN (`+in+`)`, append(args, args...))
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	sortSupported(out)
	return out, nil
}

// readRelations reads the relations matching where, with their support, vectors and rowids.
func (s *Store) readRelations(ctx context.Context, where string, args []any) ([]supported, error) {
	return s.queryRelations(ctx, `SELECT r.id, r.source, r.target, r.type, r.description, r.vals, r.embedding,
		r.support, r.rowid FROM relations r WHERE `+where, args...)
}

// queryRelations runs query, whose rows are relations as readRelations selects them (id, source, target,
// type, description, vals, embedding, support, rowid), compiled when it is among the reader's statements,
// and returns them in the order read.
func (s *Store) queryRelations(ctx context.Context, query string, args ...any) ([]supported, error) {
	s.spaceMu.RLock() // the vectors read and the dimension they are decoded with are of one space
	defer s.spaceMu.RUnlock()
	rows, err := s.readStmts.query(ctx, s.reader, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []supported
	for rows.Next() {
		var r supported
		var vals string
		var vec []byte
		if err := rows.Scan(&r.ID, &r.Source, &r.Target, &r.Type, &r.Description, &vals, &vec, &r.support, &r.rowid); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(vals), &r.Values); err != nil {
			return nil, fmt.Errorf("relation %s values: %w", r.ID, err)
		}
		if vec != nil {
			if r.Embedding, err = decodeVector(vec, s.embedDim()); err != nil {
				return nil, fmt.Errorf("relation %s: %w", r.ID, err)
			}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// sortSupported orders relations by support, most first, then by type and ID.
func sortSupported(rs []supported) {
	slices.SortFunc(rs, func(a, b supported) int {
		return cmp.Or(cmp.Compare(b.support, a.support), cmp.Compare(a.Type, b.Type), cmp.Compare(a.ID, b.ID))
	})
}

// The statements of fillEdges: the names of a JSON list of entity keys, and the supporting chunks (with
// their documents) of a JSON list of relation IDs.
const (
	entityNamesQuery = `SELECT key, name FROM entities WHERE key IN (SELECT value FROM json_each(?))`
	provenanceQuery  = `SELECT rc.relation_id, rc.chunk_id, c.doc_id FROM relation_chunks rc
		JOIN chunks c ON c.id = rc.chunk_id WHERE rc.relation_id IN (SELECT value FROM json_each(?))
		ORDER BY rc.chunk_id`
)

// fillEdges sets the ends' names and the supporting chunks and documents of every edge.
func (s *Store) fillEdges(ctx context.Context, edges []graphrag.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	byID := make(map[string]*graphrag.Edge, len(edges))
	var ids, ends []string
	for i := range edges {
		e := &edges[i]
		byID[e.ID] = e
		ids = append(ids, e.ID)
		ends = append(ends, e.Source, e.Target)
	}
	names := map[string]string{}
	err := eachPair(ctx, compiledReader{s}, entityNamesQuery, []any{jsonList(unique(ends))}, func(k, n string) {
		names[k] = n
	})
	if err != nil {
		return err
	}
	for i := range edges {
		edges[i].SourceName, edges[i].TargetName = names[edges[i].Source], names[edges[i].Target]
	}
	return readProvenance(ctx, compiledReader{s}, provenanceQuery, []any{jsonList(ids)},
		func(id, chunkID, docID string) {
			e := byID[id]
			e.ChunkIDs = append(e.ChunkIDs, chunkID)
			e.DocIDs = insertSorted(e.DocIDs, docID)
		})
}
