package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/websearch"
)

// evalFlags are the eval command's own flags.
type evalFlags struct {
	set, pipelines, jsonPath, ingestDir, bench string
	agentQueries                               string
	retrieval                                  bool
	workers, questions                         int
}

func (c *cli) evalCommand() *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval --set FILE | --bench DIR",
		Short: "measure answers or retrieval on a question set, or retrieval on a multi-hop benchmark folder",
		Long: `Answer a question set with each pipeline (naive, advanced, ablations) and print markdown tables of
correctness, gold-document recall, graph facts, model calls, rounds, tokens and time; or, with --retrieval,
measure retrieval alone (hybrid search with and without the graph) on the multi-hop questions, without the
chat model; or, with --bench, measure retrieval on a benchmark folder (docs/benchmarks.md).`,
		Example: `  hopwise eval --set questions.jsonl --ingest corpus/ --pipelines all
  hopwise eval --set questions.jsonl --retrieval
  hopwise eval --bench ../shared/bench/musique`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	fs.StringVar(&f.set, "set", "", "question set, one JSON object a line")
	fs.StringVar(&f.pipelines, "pipelines", "naive,advanced", "comma-separated pipelines: "+strings.Join(eval.PipelineNames(), ", ")+", or all")
	fs.StringVar(&f.jsonPath, "json", "", "also write every per-question result to this JSON file")
	fs.StringVar(&f.ingestDir, "ingest", "", "ingest the documents of this folder first (documents already ingested are skipped)")
	fs.BoolVar(&f.retrieval, "retrieval", false, "retrieval benchmark: recall@1,3,5,10 of the gold documents, hybrid vs hybrid + graph")
	fs.StringVar(&f.bench, "bench", "", "retrieval benchmark over a folder of corpus.jsonl, questions.jsonl and openie.jsonl: "+
		"ingests it into a store of its own under the data directory, replaying the recorded extraction, and prints recall@2 and @5 by hop type")
	fs.StringVar(&f.agentQueries, "agent-queries", "", "with --bench: also measure retrieval with the sub-questions the agent's loop writes, "+
		"read from this JSON-lines file; questions it lacks are asked to the chat model first and appended to it")
	fs.IntVar(&f.questions, "questions", 0, "with --bench: only the first N questions (0: all)")
	fs.IntVar(&f.workers, "workers", 1, "questions answered at once (1 keeps timings free of contention)")
	cmd.MarkFlagsMutuallyExclusive("set", "bench")
	cmd.MarkFlagsOneRequired("set", "bench")
	cmd.MarkFlagsMutuallyExclusive("set", "agent-queries")
	cfg := c.settings(cmd, storeFlags, modelFlags, agentFlags, ingestFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		if f.bench != "" {
			return runBench(ctx, c.e, cfg, logger, f)
		}
		return runEval(ctx, c.e, cfg, logger, f)
	})
	return cmd
}

func runEval(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, f evalFlags) error {
	set, err := eval.LoadSet(f.set)
	if err != nil {
		return err
	}
	if f.ingestDir != "" {
		// progress goes to stderr so that stdout holds only the tables
		if err := ingest(ctx, &env{stdin: e.stdin, stdout: e.stderr, stderr: e.stderr}, cfg, logger, []string{f.ingestDir}, false); err != nil {
			return fmt.Errorf("ingest %s: %w", f.ingestDir, err)
		}
	}
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	st, err := a.store.Stats(ctx)
	if err != nil {
		return err
	}
	if st.Chunks == 0 {
		return errors.New("the store holds no documents: ingest the corpus first (--ingest DIR, or hopwise ingest DIR)")
	}
	fmt.Fprintf(e.stdout, "Question set %s (%d questions); model %s; store %s (%d documents, %d chunks, %d entities, %d relations); %s\n\n",
		f.set, len(set), cfg.LLMModel, a.store.Kind(), st.Documents, st.Chunks, st.Entities, st.Relations, time.Now().Format("2006-01-02 15:04"))
	if f.retrieval {
		return evalRetrieval(ctx, e, a, set, f.jsonPath)
	}
	return evalAnswers(ctx, e, a, set, f)
}

func evalRetrieval(ctx context.Context, e *env, a *app, set []eval.Question, jsonPath string) error {
	var multiHop []eval.Question
	for _, q := range set {
		if q.Category == eval.MultiHop {
			multiHop = append(multiHop, q)
		}
	}
	results, err := eval.RetrievalRecall(ctx, a.retriever, multiHop, []int{1, 3, 5, 10})
	if err != nil {
		return err
	}
	if err := eval.WriteRetrievalTable(e.stdout, results); err != nil {
		return err
	}
	return writeJSON(jsonPath, map[string]any{"retrieval": results})
}

func evalAnswers(ctx context.Context, e *env, a *app, set []eval.Question, f evalFlags) error {
	web, err := websearch.New(a.cfg.WebSearch, a.cfg.WebSearchURL, a.cfg.WebSearchAPIKey, nil)
	if err != nil {
		return err
	}
	rr := reranker(a.cfg)
	base, err := configuredTechniques(a.cfg)
	if err != nil {
		return err
	}
	pipelines, err := eval.ParsePipelines(f.pipelines, base)
	if err != nil {
		return err
	}
	agentFor := func(t agent.Techniques) *agent.Agent { return agentWith(a, web, rr, t) }
	bar := eval.NewBar(e.stderr, isTerminal(e.stderr))
	runner := &eval.Runner{Agent: agentFor, Retriever: a.retriever, Workers: f.workers, Progress: bar.Update}
	outcomes, runErr := runner.Run(ctx, set, pipelines)
	if len(outcomes) > 0 {
		if err := eval.WriteTables(e.stdout, outcomes); err != nil {
			return err
		}
		for _, note := range sameAsAdvanced(pipelines, base, agentFor) {
			fmt.Fprintln(e.stdout, note)
		}
		if err := writeJSON(f.jsonPath, map[string]any{"set": f.set, "outcomes": outcomes}); err != nil {
			return err
		}
	}
	return runErr
}

// sameAsAdvanced notes the ablations that change nothing here because their technique is off anyway
// (HyDE unless configured, web fallback without a provider, rerank without a reranker).
func sameAsAdvanced(pipelines []eval.Pipeline, base agent.Techniques, agentFor func(agent.Techniques) *agent.Agent) []string {
	advanced := agentFor(base).Config().Techniques
	var notes []string
	for _, p := range pipelines {
		if p.Naive || p.Name == eval.Advanced {
			continue
		}
		if agentFor(p.Techniques).Config().Techniques == advanced {
			notes = append(notes, fmt.Sprintf("Note: %s runs the same techniques as advanced here: that technique is off in this configuration.", p.Name))
		}
	}
	return notes
}

func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// isTerminal reports whether w is a terminal (a progress bar redrawn in place) rather than a file or pipe.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
