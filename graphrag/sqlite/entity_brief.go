package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// EntityBriefs reads the entities of keys as Entities does without their provenance, which grows with the
// corpus (a hub entity of 100k passages has 100k mentions): ChunkIDs is empty and DocIDs holds those of
// docs that mention the entity. Entity resolution compares each passage's names with the graph's this way.
func (s *Store) EntityBriefs(ctx context.Context, keys, docs []string) ([]graphrag.Entity, error) {
	keys = unique(keys)
	found := make(map[string]*graphrag.Entity, len(keys))
	for lo := 0; lo < len(keys); lo += batchSize {
		if err := s.readEntityRows(ctx, keys[lo:min(lo+batchSize, len(keys))], found); err != nil {
			return nil, fmt.Errorf("sqlite: entity briefs: %w", err)
		}
	}
	if docs = unique(docs); len(docs) > 0 && len(found) > 0 {
		// from the documents' chunks (few) to their mentions, never through an entity's mentions (many)
		held := make([]string, 0, len(found))
		for k := range found {
			held = append(held, k)
		}
		for lo := 0; lo < len(held); lo += batchSize {
			part := held[lo:min(lo+batchSize, len(held))]
			err := readProvenance(ctx, s.reader, `SELECT DISTINCT m.entity_key, '', c.doc_id FROM chunks c
				CROSS JOIN mentions m ON m.chunk_id = c.id
				WHERE c.doc_id IN (`+placeholders(len(docs))+`) AND m.entity_key IN (`+placeholders(len(part))+`)`,
				append(stringArgs(docs), stringArgs(part)...),
				func(key, _, docID string) { found[key].DocIDs = insertSorted(found[key].DocIDs, docID) })
			if err != nil {
				return nil, fmt.Errorf("sqlite: entity briefs: %w", err)
			}
		}
	}
	out := make([]graphrag.Entity, 0, len(found))
	for _, k := range keys {
		if e, ok := found[k]; ok {
			out = append(out, *e)
		}
	}
	return out, nil
}

// SearchEntityBriefs finds entities as SearchEntities does and reads them as EntityBriefs does.
func (s *Store) SearchEntityBriefs(ctx context.Context, query string, k int, docs []string) ([]graphrag.Entity, error) {
	keys, err := s.entityKeysMatching(ctx, query, k)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	return s.EntityBriefs(ctx, keys, docs)
}

// NeighbourNames returns the names of both ends of the relations touching the entity of key, the best
// supported first as Neighborhood orders them (by the support kept in each relation's row), at most limit
// relations: what the entity is found with, without the relations' vectors and provenance.
func (s *Store) NeighbourNames(ctx context.Context, key string, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT a.name, b.name FROM (
			SELECT r.id, r.type, r.source, r.target, r.support FROM relations r WHERE r.source = ?1
			UNION SELECT r.id, r.type, r.source, r.target, r.support FROM relations r WHERE r.target = ?1
		) t JOIN entities a ON a.key = t.source JOIN entities b ON b.key = t.target
		ORDER BY t.support DESC, t.type, t.id LIMIT ?2`, key, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: neighbour names of %q: %w", key, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return nil, fmt.Errorf("sqlite: neighbour names of %q: %w", key, err)
		}
		out = append(out, a, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: neighbour names of %q: %w", key, err)
	}
	return out, nil
}
