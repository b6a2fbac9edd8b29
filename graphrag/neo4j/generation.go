package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The Meta node's generation counts the commits of DeleteDocument, ReplaceDocument and CommitReextract
// (graphrag.DocumentStore.Generation), in the database so that every process sharing it sees the others'.
// This process's readers of the count wait while one of its commits runs (graphrag.GenerationGate).

// Generation returns the count of deletes, replaces, re-extraction and re-embedding commits in the database, waiting while one of
// this process's commits.
func (s *Store) Generation(ctx context.Context) (uint64, error) {
	return s.gen.Read(ctx, s.generation)
}

// generation reads the count, inside the gate (s.gen).
func (s *Store) generation(ctx context.Context) (uint64, error) {
	records, err := s.readRecords(ctx, `OPTIONAL MATCH (m:Meta {id: $id}) RETURN coalesce(m.generation, 0)`,
		map[string]any{"id": metaID})
	if err != nil {
		return 0, fmt.Errorf("neo4j: generation: %w", err)
	}
	return uint64(max(asInt(first(records)), 0)), nil
}

// changing holds this process's readers of Generation off until the returned func is called, after a
// delete, replace, re-extraction or re-embedding committed (or failed).
func (s *Store) changing() (done func()) { return s.gen.Changing() }

// countChange adds the commit of tx to the generation; it is the last statement of a delete, replace or
// re-extraction's commit, so that the lock on the count is held for the commit alone.
func countChange(ctx context.Context, tx neo4j.ManagedTransaction) error {
	return exec(ctx, tx, `MATCH (m:Meta {id: $id}) SET m.generation = coalesce(m.generation, 0) + 1`, map[string]any{"id": metaID})
}

// HoldCommits holds this Store's deletes, replaces, re-extraction and re-embedding commits off until release is called
// (graphrag.CommitHolder), once the one running, if any, is done.
func (s *Store) HoldCommits(ctx context.Context) (uint64, func() (uint64, error), error) {
	return s.gen.Hold(ctx, s.generation)
}
