package neo4j

import (
	"context"
	"fmt"
	"sync"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The Meta node's generation counts the commits of DeleteDocument, ReplaceDocument and CommitReextract
// (graphrag.DocumentStore.Generation), in the database so that every process sharing it sees the others'.
//
// generationGate holds this process's readers of the count off while one of its deletes, replaces or
// re-extraction commits (exclusive, see changing), so that none reads the count of before a commit after reading what
// the commit wrote. Another process's commit is seen by its count alone; Neo4j applies a transaction's
// writes at once, so a read racing that commit sees the new count as soon as it could see its writes,
// up to the moment the commit is applied.
type generationGate struct{ mu sync.RWMutex }

// Generation returns the count of deletes, replaces and re-extraction commits in the database, waiting while one of
// this process's commits.
func (s *Store) Generation(ctx context.Context) (uint64, error) {
	s.gen.mu.RLock()
	defer s.gen.mu.RUnlock()
	records, err := s.readRecords(ctx, `OPTIONAL MATCH (m:Meta {id: $id}) RETURN coalesce(m.generation, 0)`,
		map[string]any{"id": metaID})
	if err != nil {
		return 0, fmt.Errorf("neo4j: generation: %w", err)
	}
	return uint64(max(asInt(first(records)), 0)), nil
}

// changing holds this process's readers of Generation off until the returned func is called, after a
// delete, replace or re-extraction committed (or failed).
func (s *Store) changing() (done func()) {
	s.gen.mu.Lock()
	return s.gen.mu.Unlock
}

// countChange adds the commit of tx to the generation; it is the last statement of a delete, replace or
// re-extraction's commit, so that the lock on the count is held for the commit alone.
func countChange(ctx context.Context, tx neo4j.ManagedTransaction) error {
	return exec(ctx, tx, `MATCH (m:Meta {id: $id}) SET m.generation = coalesce(m.generation, 0) + 1`, map[string]any{"id": metaID})
}
