package graphrag

import (
	"context"
	"sync"
)

// GenerationGate is how a store keeps its Generation and its commits in step within one process: a
// commit that changes the generation (a delete, a replace, the swap of a re-extraction or re-embedding)
// holds the gate exclusively from before its transaction until its in-memory state is swapped
// (Changing), so that no reader of this process reads the count of before the commit after reading what
// it wrote; readers of the count and holds (CommitHolder) share it. A commit takes the gate before any
// other lock of its store, so that a held pass waiting for a search lock never meets a commit holding it.
type GenerationGate struct{ mu sync.RWMutex }

// Read returns the count that read reads, waiting while a commit of this process runs.
func (g *GenerationGate) Read(ctx context.Context, read func(context.Context) (uint64, error)) (uint64, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return read(ctx)
}

// Changing holds readers of the count and holds off until the returned func is called, after a commit
// is done (or failed) and its in-memory state swapped.
func (g *GenerationGate) Changing() (done func()) {
	g.mu.Lock()
	return g.mu.Unlock
}

// Hold implements CommitHolder.HoldCommits with read as the store's count.
func (g *GenerationGate) Hold(ctx context.Context, read func(context.Context) (uint64, error)) (uint64, func() (uint64, error), error) {
	g.mu.RLock()
	gen, err := read(ctx)
	if err != nil {
		g.mu.RUnlock()
		return 0, nil, err
	}
	release := func() (uint64, error) {
		defer g.mu.RUnlock()
		return read(context.WithoutCancel(ctx))
	}
	return gen, release, nil
}
