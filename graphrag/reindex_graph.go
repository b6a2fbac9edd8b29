package graphrag

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// GraphReindex is what a Reindexer extracts the graph again with: the configured chat model's extractor
// (Model names it), the resolver the ingester rewrites extractions with (nil: the edits in force only,
// EditRules), and the embedder of facts in the store's searched space (the ingester's SpaceEmbedder).
type GraphReindex struct {
	Extractor ChunkExtractor
	Resolver  Resolver
	Embed     Embedder
	Model     string
	// Concurrency bounds the passages extracted at once (default 4).
	Concurrency int
	// Committed, when set, runs once the new graph is committed (the communities recomputed).
	Committed func(ctx context.Context)
}

// WithGraph lets the Reindexer extract the graph again (ReindexOptions.Graph); it returns r.
func (r *Reindexer) WithGraph(g GraphReindex) *Reindexer {
	if g.Concurrency <= 0 {
		g.Concurrency = 4
	}
	if g.Resolver == nil {
		g.Resolver = EditRules{Store: r.store}
	}
	r.graph = &g
	return r
}

// CanReextract reports whether the Reindexer was given what extracting the graph again needs.
func (r *Reindexer) CanReextract() bool { return r.graph != nil && r.graph.Model != "" }

// extractDeadline bounds one passage's extraction by a re-index, attempts and fact embedding included.
const extractDeadline = 10 * time.Minute

// reextract stages a new extraction of every passage that has none yet, a batch at a time, then commits
// them all at once. A passage whose extraction fails twice keeps what the graph holds for it.
func (r *Reindexer) reextract(ctx context.Context, batch int, report func(ReindexProgress)) error {
	if !r.CanReextract() {
		return errors.New("graphrag: re-extract: this process has no chat model to extract the graph with")
	}
	g := r.graph
	space := r.store.EmbeddingSpace()
	st, err := r.store.ReextractState(ctx)
	if err != nil {
		return fmt.Errorf("graphrag: re-extract: %w", err)
	}
	if st.Model != g.Model || st.Space != space {
		if st.Model != "" {
			r.logger.Info("re-extract: another model or embedding space was being staged; starting over",
				"was", st.Model, "was_space", st.Space, "now", g.Model, "space", space)
		}
		if err := r.store.BeginReextract(ctx, g.Model, space); err != nil {
			return fmt.Errorf("graphrag: re-extract: %w", err)
		}
		st.Staged, st.Kept = 0, 0
	}
	var mu sync.Mutex
	p := ReindexProgress{Step: StepGraph, Done: st.Staged, Total: st.Chunks, Kept: st.Kept}
	r.logger.Info("re-extracting the graph", "model", g.Model, "done", p.Done, "total", p.Total)
	report(p)
	// Every round stages at least one passage or ends; the cap is twice the rounds all of them need, plus
	// room for what new uploads add meanwhile.
	rounds := 2*(st.Chunks/batch+1) + 100
	for tries := 0; rounds > 0; rounds-- {
		todo, err := r.store.ReextractTodo(ctx, batch)
		if err != nil {
			return fmt.Errorf("graphrag: re-extract: %w", err)
		}
		if len(todo) == 0 {
			err := r.store.CommitReextract(ctx)
			if errors.Is(err, ErrReextractIncomplete) && tries < commitTries {
				tries++
				continue
			}
			if err != nil {
				return fmt.Errorf("graphrag: re-extract: %w", err)
			}
			if g.Committed != nil {
				g.Committed(ctx)
			}
			p.Done = p.Total
			report(p)
			r.logger.Info("re-extracted the graph", "model", g.Model, "passages", p.Total, "kept", p.Kept)
			return nil
		}
		err = r.stageGraphs(ctx, todo, func(kept bool) {
			mu.Lock()
			defer mu.Unlock()
			p.Done++
			p.Total = max(p.Total, p.Done)
			if kept {
				p.Kept++
			}
			report(p)
		})
		if err != nil {
			return fmt.Errorf("graphrag: re-extract: %w", err)
		}
	}
	return errors.New("graphrag: re-extract: passages keep arriving faster than they are extracted; run it again")
}

// stageGraphs extracts and stages the passages, Concurrency at a time, calling done after each; the first
// error (of the store, or a cancelled context) stops it.
func (r *Reindexer) stageGraphs(ctx context.Context, chunks []Chunk, done func(kept bool)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errMu    sync.Mutex
		firstErr error
		sem      = make(chan struct{}, r.graph.Concurrency)
	)
	for _, c := range chunks {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			kept, err := r.stageGraph(ctx, c)
			if err != nil {
				errMu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				errMu.Unlock()
				cancel()
				return
			}
			done(kept)
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// stageGraph extracts one passage with the configured model, resolves its entities as the ingester does
// (the edits in force, entity resolution against the graph searches read), embeds its facts and stages
// the result; a passage whose extraction fails twice is staged as kept.
func (r *Reindexer) stageGraph(ctx context.Context, c Chunk) (kept bool, err error) {
	g := r.graph
	ctx, cancel := context.WithTimeout(ctx, extractDeadline)
	defer cancel()
	var x Extraction
	for attempt := 0; attempt < 2; attempt++ {
		if x, err = g.Extractor.Extract(ctx, c); err == nil || ctx.Err() != nil {
			break
		}
		r.logger.Warn("re-extract: extraction failed", "chunk", c.ID, "attempt", attempt+1, "err", err)
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil {
		r.logger.Warn("re-extract: the passage keeps its graph", "chunk", c.ID, "err", err)
		return true, r.store.StageReextraction(ctx, Extraction{ChunkID: c.ID}, true)
	}
	x.ChunkID = c.ID
	if x, err = g.Resolver.Resolve(ctx, c, x); err != nil {
		return false, fmt.Errorf("resolve entities of %s: %w", c.ID, err)
	}
	if err := embedFactVectors(ctx, g.Embed, x.Relations); err != nil {
		return false, fmt.Errorf("passage %s: %w", c.ID, err)
	}
	return false, r.store.StageReextraction(ctx, x, false)
}
