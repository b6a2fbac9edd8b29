package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// Stats counts what the file holds; Embedded counts chunks with a vector.
func (s *Store) Stats(ctx context.Context) (graphrag.Stats, error) {
	var st graphrag.Stats
	err := s.reader.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM documents),
		(SELECT count(*) FROM chunks),
		(SELECT count(*) FROM chunks WHERE embedding IS NOT NULL),
		(SELECT count(*) FROM entities),
		(SELECT count(*) FROM relations),
		(SELECT count(*) FROM mentions)`).
		Scan(&st.Documents, &st.Chunks, &st.Embedded, &st.Entities, &st.Relations, &st.Mentions)
	if err != nil {
		return graphrag.Stats{}, fmt.Errorf("sqlite: stats: %w", err)
	}
	return st, nil
}
