package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/resolve"
)

// runBench measures retrieval on a multi-hop benchmark folder. The passages go into a store of their own
// (bench-NAME under the data directory, or the configured Neo4j, which should then be a scratch
// database), kept between runs so that only new passages are embedded; the recorded extraction is
// replayed, so no chat model is called, except to write the agent's sub-questions (--agent-queries) that
// the file does not hold yet.
func runBench(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, f evalFlags) error {
	b, err := eval.LoadBench(f.bench)
	if err != nil {
		return err
	}
	if f.questions < 0 {
		return fmt.Errorf("--questions %d: want a positive number, or 0 for all", f.questions)
	}
	if f.questions > 0 && f.questions < len(b.Questions) {
		b.Questions = b.Questions[:f.questions] // the passages stay: the store is the whole benchmark's
	}
	benchCfg := *cfg
	benchCfg.DataDir = filepath.Join(cfg.DataDir, "bench-"+b.Name)
	a, err := openApp(ctx, &benchCfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	var extract graphrag.ChunkExtractor = eval.NewReplayExtractor(b)
	opt := graphrag.IngestOptions{Workers: 2}
	if cfg.EntityResolution { // ENTITY_RESOLUTION=false measures the normalised key alone
		opt.Resolver = resolve.New(a.store, a.llm, logger)
	}
	in := graphrag.NewIngester(a.store, a.llm, extract, opt, logger)
	start := time.Now()
	if err := eval.IngestBench(ctx, a.store, in, b); err != nil {
		return err
	}
	st, err := a.store.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "bench %s: %d passages ready in %s\n", b.Name, st.Documents, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "Bench %s: %d questions, %d passages; store %s (%d chunks, %d entities, %d relations); embeddings %s; %s\n\n",
		b.Name, len(b.Questions), len(b.Passages), a.store.Kind(), st.Chunks, st.Entities, st.Relations, cfg.EmbedModel,
		time.Now().Format("2006-01-02 15:04"))
	var loop map[string]eval.AgentQueries
	if f.agentQueries != "" {
		if loop, err = benchAgentQueries(ctx, e, a, b, f.agentQueries); err != nil {
			return err
		}
	}
	results, err := eval.BenchRecall(ctx, a.retriever, b, []int{2, 5}, loop)
	if err != nil {
		return err
	}
	if err := eval.WriteBenchTable(e.stdout, b.Name, results); err != nil {
		return err
	}
	return writeJSON(f.jsonPath, map[string]any{"bench": b.Name, "results": results, "agent_queries": loop})
}

// benchAgentQueries reads the agent's sub-questions of b's questions from path and asks the agent, as
// configured for `hopwise ask` (without web search), for those it lacks.
func benchAgentQueries(ctx context.Context, e *env, a *app, b *eval.Bench, path string) (map[string]eval.AgentQueries, error) {
	t, err := configuredTechniques(a.cfg)
	if err != nil {
		return nil, err
	}
	ag := agentWith(a, nil, reranker(a.cfg), t)
	ask := func(ctx context.Context, question string) (eval.AgentQueries, error) {
		return eval.LoopQueries(ctx, ag, question)
	}
	progress := func(done, total int, q eval.AgentQueries) {
		fmt.Fprintf(e.stderr, "agent sub-questions %d/%d (%s, %.0f s, %s): %q\n", done, total, q.ID, q.Seconds, q.Outcome, q.Queries)
	}
	loop, err := eval.RecordAgentQueries(ctx, b, path, ask, progress)
	if err != nil {
		return nil, err
	}
	asked := 0
	for _, q := range b.Questions {
		if len(loop[q.ID].Queries) > 0 {
			asked++
		}
	}
	fmt.Fprintf(e.stderr, "agent sub-questions: %d of %d questions searched further (%s)\n", asked, len(b.Questions), path)
	return loop, nil
}
