package sqlite

import (
	"context"
	"sync"
	"sync/atomic"
)

// generation counts the commits of DeleteDocument and ReplaceDocument (graphrag.DocumentStore.Generation).
// One process holds the file (see Store), so the count lives in memory. mu is held exclusively from
// before such a commit until its count is added, and shared by Generation: a reader can never read the
// count of before a commit after reading what the commit wrote.
type generation struct {
	mu sync.RWMutex
	n  atomic.Uint64
}

// Generation returns the number of deletes and replaces committed since the store was opened, waiting
// while one commits.
func (s *Store) Generation(context.Context) (uint64, error) {
	s.gen.mu.RLock()
	defer s.gen.mu.RUnlock()
	return s.gen.n.Load(), nil
}

// changing holds readers of Generation off while a delete or replace commits; the returned func counts
// it and lets them read again. A commit that fails is counted too: a needless pass again, never a
// missed one.
func (s *Store) changing() (done func()) {
	s.gen.mu.Lock()
	return func() {
		s.gen.n.Add(1)
		s.gen.mu.Unlock()
	}
}
