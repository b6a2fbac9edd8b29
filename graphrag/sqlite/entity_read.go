package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// Entities returns the entities with these keys in the order asked, each once, with the chunks and
// documents that mention them (sorted); unknown keys are skipped.
func (s *Store) Entities(ctx context.Context, keys []string) ([]graphrag.Entity, error) {
	keys = unique(keys)
	found := make(map[string]*graphrag.Entity, len(keys))
	for lo := 0; lo < len(keys); lo += batchSize {
		part := keys[lo:min(lo+batchSize, len(keys))]
		if err := s.readEntities(ctx, part, found); err != nil {
			return nil, fmt.Errorf("sqlite: entities: %w", err)
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

func (s *Store) readEntities(ctx context.Context, keys []string, into map[string]*graphrag.Entity) error {
	if err := s.readEntityRows(ctx, keys, into); err != nil {
		return err
	}
	in, args := placeholders(len(keys)), stringArgs(keys)
	return readProvenance(ctx, s.reader, `SELECT m.entity_key, m.chunk_id, c.doc_id FROM mentions m
		JOIN chunks c ON c.id = m.chunk_id WHERE m.entity_key IN (`+in+`) ORDER BY m.chunk_id`, args,
		func(key, chunkID, docID string) {
			if e := into[key]; e != nil {
				e.ChunkIDs = append(e.ChunkIDs, chunkID)
				e.DocIDs = insertSorted(e.DocIDs, docID)
			}
		})
}

// entityRowsQuery reads the entities of a JSON list of keys, without provenance.
const entityRowsQuery = `SELECT key, name, type, description, aliases FROM entities
	WHERE key IN (SELECT value FROM json_each(?))`

// readEntityRows reads the entities with these keys into into, without provenance.
func (s *Store) readEntityRows(ctx context.Context, keys []string, into map[string]*graphrag.Entity) error {
	rows, err := s.readStmts.query(ctx, s.reader, entityRowsQuery, jsonList(keys))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e graphrag.Entity
		var aliases string
		if err := rows.Scan(&e.Key, &e.Name, &e.Type, &e.Description, &aliases); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(aliases), &e.Aliases); err != nil {
			return fmt.Errorf("entity %q aliases: %w", e.Key, err)
		}
		into[e.Key] = &e
	}
	return rows.Err()
}

// readProvenance calls add for every (owner, chunk, document) row of query.
func readProvenance(ctx context.Context, q queryer, query string, args []any, add func(owner, chunkID, docID string)) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var owner, chunkID, docID string
		if err := rows.Scan(&owner, &chunkID, &docID); err != nil {
			return err
		}
		add(owner, chunkID, docID)
	}
	return rows.Err()
}

// insertSorted adds v to the sorted set s.
func insertSorted(s []string, v string) []string {
	i, ok := slices.BinarySearch(s, v)
	if ok {
		return s
	}
	return slices.Insert(s, i, v)
}
