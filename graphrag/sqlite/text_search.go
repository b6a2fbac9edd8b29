package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchText ranks embedded chunks by BM25 over their text, best first, with Score = -bm25 (higher is
// better). Chunks still pending are not searchable yet. A query with no words finds nothing.
func (s *Store) SearchText(ctx context.Context, query string, k int) ([]graphrag.ScoredChunk, error) {
	match := ftsQuery(query)
	if match == "" || k <= 0 {
		return nil, nil
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT c.id, c.doc_id, c.ordinal, c.section, c.text, c.tokens,
		c.status, c.error, d.name, d.title, f.rank
		FROM chunks_fts f JOIN chunks c ON c.seq = f.rowid JOIN documents d ON d.id = c.doc_id
		WHERE chunks_fts MATCH ? AND c.status <> 'pending'
		ORDER BY f.rank LIMIT ?`, match, k)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search text: %w", err)
	}
	defer rows.Close()
	var out []graphrag.ScoredChunk
	for rows.Next() {
		var bm25 float64
		c, err := scanChunk(rows, &bm25)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search text: %w", err)
		}
		out = append(out, graphrag.ScoredChunk{Chunk: c, Score: -bm25, Rank: len(out) + 1})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search text: %w", err)
	}
	return out, nil
}
