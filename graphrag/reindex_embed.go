package graphrag

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"
)

// SpaceEmbedder embeds questions and new passages in the space of a store's searched vectors, so that
// search keeps answering while the store is moved to another embedding model: once the store's vectors
// are the configured model's it is that model, and until then (a re-index not yet run, or running) the
// model the store's vectors come from, asked by name at the same endpoint. When that model no longer
// answers, or answers in another dimension, embedding fails with an error that says to re-index.
type SpaceEmbedder struct {
	store      ReembedStore
	configured Embedder
	space      EmbeddingSpace
	byName     func(model string) Embedder

	mu    sync.Mutex
	named map[string]Embedder
}

// NewSpaceEmbedder returns a SpaceEmbedder over store whose configured model, of space, is configured;
// byName gives an Embedder for another model of the same endpoint.
func NewSpaceEmbedder(store ReembedStore, configured Embedder, space EmbeddingSpace, byName func(model string) Embedder) *SpaceEmbedder {
	return &SpaceEmbedder{store: store, configured: configured, space: space, byName: byName, named: map[string]Embedder{}}
}

// InSpace reports whether the store's vectors are the configured model's, of its dimension; a store that
// recorded no model is taken to be the configured model's when the dimension agrees.
func InSpace(active, configured EmbeddingSpace) bool {
	return active.Dim == configured.Dim && (active.Model == "" || configured.Model == "" || active.Model == configured.Model)
}

// Embed embeds texts with the model of the store's searched vectors.
func (e *SpaceEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	active := e.store.EmbeddingSpace()
	if InSpace(active, e.space) {
		return e.configured.Embed(ctx, texts)
	}
	model := cmp.Or(active.Model, e.space.Model)
	vecs, err := e.model(model).Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("graphrag: the store's vectors come from the embedding model %q, which search needs "+
			"until `hopwise reindex --embeddings` (or Re-index on the Status page) has moved them to %q: %w",
			model, e.space.Model, err)
	}
	for _, v := range vecs {
		if len(v) != active.Dim {
			return nil, fmt.Errorf("graphrag: the store's vectors come from the embedding model %q with %d dimensions, "+
				"which now gives %d: run `hopwise reindex --embeddings` (or Re-index on the Status page) to move "+
				"them to the configured model %q: %w", model, active.Dim, len(v), e.space.Model, ErrDimension)
		}
	}
	return vecs, nil
}

func (e *SpaceEmbedder) model(name string) Embedder {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.named[name]
	if m == nil {
		m = e.byName(name)
		e.named[name] = m
	}
	return m
}

// Poll calls check every interval until ctx ends, and failed with each error it returns meanwhile (a
// store following another process's re-embedding, FollowSpace).
func Poll(ctx context.Context, interval time.Duration, check func(context.Context) error, failed func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := check(ctx); err != nil && ctx.Err() == nil {
			failed(err)
		}
	}
}
