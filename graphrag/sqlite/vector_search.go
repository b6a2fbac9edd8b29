package sqlite

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchVector ranks embedded chunks by exact cosine similarity to vec, best first, over the in-memory
// copy of the vectors. A vector of another dimension fails with ErrDimension; a zero vector finds nothing.
func (s *Store) SearchVector(ctx context.Context, vec []float32, k int) ([]graphrag.ScoredChunk, error) {
	s.swapMu.RLock()
	defer s.swapMu.RUnlock()
	index := s.vectors
	if len(vec) != s.embedDim() {
		// A query embedded just before a re-embedding committed reads the vectors it replaced (reindex.go).
		if index = s.previousIndex(len(vec)); index == nil {
			return nil, fmt.Errorf("sqlite: search vector: query has %d values, the store %d: %w",
				len(vec), s.embedDim(), graphrag.ErrDimension)
		}
	}
	hits := index.search(vec, k)
	if len(hits) == 0 {
		return nil, nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	// Chunks skips the chunks deleted since the scan, so a deleted document is never returned.
	chunks, err := s.Chunks(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search vector: %w", err)
	}
	score := make(map[string]float32, len(hits))
	for _, h := range hits {
		score[h.id] = h.score
	}
	out := make([]graphrag.ScoredChunk, len(chunks))
	for i, c := range chunks {
		out[i] = graphrag.ScoredChunk{Chunk: c, Score: float64(score[c.ID]), Rank: i + 1}
	}
	return out, nil
}
