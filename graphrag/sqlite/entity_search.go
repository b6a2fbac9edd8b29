package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchEntities finds entities whose name or aliases hold the words of query, best BM25 first, through
// the same safe query builder as SearchText.
func (s *Store) SearchEntities(ctx context.Context, query string, k int) ([]graphrag.Entity, error) {
	keys, err := s.entityKeysMatching(ctx, query, k)
	if err != nil || len(keys) == 0 {
		return nil, err
	}
	entities, err := s.Entities(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search entities: %w", err)
	}
	return entities, nil
}

// entityKeysMatching returns the keys of the k entities whose name or aliases best match the words of
// query; none for a query without words. They are ranked by bm25() with SQLite's sorter keeping the k
// best, as FTS5's ORDER BY rank ranks them (the rank is bm25() here) without the statement of its own
// that FTS5 compiles for rank at every search; k is written in the text (see hubsQuery).
func (s *Store) entityKeysMatching(ctx context.Context, query string, k int) ([]string, error) {
	match := ftsQuery(query)
	if match == "" || k <= 0 {
		return nil, nil
	}
	keys, err := queryStrings(ctx, compiledReader{s}, entityMatchQuery(k), match)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search entities: %w", err)
	}
	return keys, nil
}

// entityMatchQuery reads the keys of the k entities that best match a full-text query.
func entityMatchQuery(k int) string {
	return fmt.Sprintf(`SELECT e.key FROM entities_fts f JOIN entities e ON e.seq = f.rowid
		WHERE entities_fts MATCH ? ORDER BY bm25(entities_fts) LIMIT %d`, k)
}
