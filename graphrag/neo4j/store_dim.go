package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// useRecordedDim takes the dimension of the existing vector index when none is configured.
func (s *Store) useRecordedDim(ctx context.Context) error {
	if s.opt.EmbedDim > 0 {
		return nil
	}
	dim, err := s.vectorIndexDim(ctx)
	if err != nil {
		return fmt.Errorf("neo4j: read vector index: %w", err)
	}
	if dim == 0 {
		return fmt.Errorf("neo4j: %s has no vector index yet: %w", s.uri, graphrag.ErrNoDimension)
	}
	s.opt.EmbedDim = dim
	return nil
}
