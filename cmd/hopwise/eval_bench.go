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
// replayed, so no chat model is called.
func runBench(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, dir, jsonPath string) error {
	b, err := eval.LoadBench(dir)
	if err != nil {
		return err
	}
	benchCfg := *cfg
	benchCfg.DataDir = filepath.Join(cfg.DataDir, "bench-"+b.Name)
	a, err := openApp(ctx, &benchCfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	var extract graphrag.ChunkExtractor = eval.NewReplayExtractor(b)
	in := graphrag.NewIngester(a.store, a.llm, extract, graphrag.IngestOptions{Workers: 2,
		Resolver: resolve.New(a.store, a.llm, logger)}, logger)
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
	results, err := eval.BenchRecall(ctx, a.retriever, b, []int{2, 5})
	if err != nil {
		return err
	}
	if err := eval.WriteBenchTable(e.stdout, b.Name, results); err != nil {
		return err
	}
	return writeJSON(jsonPath, map[string]any{"bench": b.Name, "results": results})
}
