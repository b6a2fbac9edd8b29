package sqlite

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// FollowSpace checks, every interval until ctx ends, whether another process (`hopwise reindex`) committed
// a re-embedding of the file, and then loads the file's vectors in their new space, as a commit of this
// Store would: a running server moves to the new vectors within an interval instead of searching the
// copy it loaded at start, and refusing to write, until it is restarted.
func (s *Store) FollowSpace(ctx context.Context, interval time.Duration) {
	graphrag.Poll(ctx, interval, s.followSpace, func(err error) {
		s.logger.Warn("sqlite: could not follow the file's embedding space", "path", s.path, "err", err)
	})
}

// recordedSpace reads the model and dimension the file records.
func (s *Store) recordedSpace(ctx context.Context) (graphrag.EmbeddingSpace, error) {
	var dim, model string
	err := s.reader.QueryRowContext(ctx, `SELECT coalesce((SELECT value FROM meta WHERE key = ?), ''),
		coalesce((SELECT value FROM meta WHERE key = ?), '')`, metaEmbedDim, metaEmbedModel).Scan(&dim, &model)
	if err != nil || dim == "" {
		return graphrag.EmbeddingSpace{}, err
	}
	n, err := strconv.Atoi(dim)
	if err != nil {
		return graphrag.EmbeddingSpace{}, fmt.Errorf("the recorded embedding dimension %q is not a number", dim)
	}
	return graphrag.EmbeddingSpace{Model: model, Dim: n}, nil
}

// movedFrom reports whether the file's space is another than own: another dimension, or another model
// where both are named.
func movedFrom(own, file graphrag.EmbeddingSpace) bool {
	return file.Dim > 0 && (file.Dim != own.Dim || file.Model != "" && own.Model != "" && file.Model != own.Model)
}

// followSpace loads the file's vectors into memory in the space it records when that is not this Store's.
// Vector writes and searches of this Store wait meanwhile; a query of the old dimension still reads the
// old vectors for PreviousVectorsFor.
func (s *Store) followSpace(ctx context.Context) error {
	file, err := s.recordedSpace(ctx)
	if err != nil || !movedFrom(s.EmbeddingSpace(), file) {
		return err
	}
	s.vecMu.Lock()
	defer s.vecMu.Unlock()
	s.spaceMu.Lock()
	defer s.spaceMu.Unlock()
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if file, err = s.recordedSpace(ctx); err != nil || !movedFrom(s.EmbeddingSpace(), file) {
		return err
	}
	old := s.EmbeddingSpace()
	if old.Dim != file.Dim {
		prev := &vectorIndex{}
		prev.replaceWith(s.vectors)
		s.previous = prev
		time.AfterFunc(PreviousVectorsFor, func() {
			s.swapMu.Lock()
			if s.previous == prev {
				s.previous = nil
			}
			s.swapMu.Unlock()
		})
	}
	s.space.Store(&file)
	s.vectors.replaceWith(newVectorIndex(file.Dim))
	if err := s.loadVectors(ctx); err != nil {
		return fmt.Errorf("load the vectors of %q (%d dimensions): %w", file.Model, file.Dim, err)
	}
	s.logger.Info("sqlite: another process re-embedded the file; searching its vectors now", "path", s.path,
		"model", file.Model, "dim", file.Dim, "was_model", old.Model, "was_dim", old.Dim, "vectors", s.vectors.len())
	return nil
}
