package neo4j

import (
	"context"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// FollowSpace checks, every interval until ctx ends, whether another process (`hopwise reindex`) committed
// a re-embedding of the database, and then searches the new slot in its space, as a commit of this Store
// would: a running server moves to the new vectors within an interval instead of refusing to write until
// it is restarted.
func (s *Store) FollowSpace(ctx context.Context, interval time.Duration) {
	graphrag.Poll(ctx, interval, s.followSpace, func(err error) {
		s.logger.Warn("neo4j: could not read the database's embedding space", "err", err)
	})
}

// followSpace moves this Store to the space the Meta node records when its slot is not this Store's.
func (s *Store) followSpace(ctx context.Context) error {
	var slot, dim int
	var model string
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `OPTIONAL MATCH (m:Meta {id: $id})
			RETURN coalesce(m.vectorSlot, 0), coalesce(m.embedDim, 0), coalesce(m.embedModel, '')`, map[string]any{"id": metaID})
		if err != nil {
			return err
		}
		v := records[0].Values
		slot, dim, model = asInt(v[0])%2, asInt(v[1]), asString(v[2])
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: follow the embedding space: %w", err)
	}
	s.spaceMu.Lock()
	defer s.spaceMu.Unlock()
	old := s.space.Load()
	if slot == old.slot || dim <= 0 {
		return nil
	}
	next := &space{EmbeddingSpace: graphrag.EmbeddingSpace{Model: model, Dim: dim}, slot: slot}
	s.useSpace(old, next)
	s.logger.Info("neo4j: another process re-embedded the database; searching its vectors now",
		"uri", s.uri, "model", model, "dim", dim, "was_model", old.Model, "was_dim", old.Dim)
	return nil
}
