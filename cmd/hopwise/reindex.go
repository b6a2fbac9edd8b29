package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
)

func (c *cli) reindexCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reindex",
		Short: "embed every passage again with the configured embedding model, of any dimension (`--embeddings`), or extract the graph again with the configured chat model (`--graph`)",
		Long: `Embed every passage and fact again with the configured embedding model (EMBED_MODEL, EMBED_DIM), for
instance after changing it to a model of another dimension, which the store otherwise refuses to open
with (--embeddings, what reindex does when no step is named). The new vectors are kept beside the old
ones until every passage has one, then searches move to them at once (SQLite and Neo4j rebuild their
vector index for the new dimension): until then questions are still answered from the old vectors,
embedded by the model that made them.

--graph extracts the graph of every passage again with the configured chat model (LLM_MODEL), resolving
entities as an ingest does; the edits people made to the graph hold. The new graph is kept beside the
old one until every passage has been extracted, then swapped in at once: until then questions use the
old graph. A passage whose extraction fails twice keeps its part of the old graph. The communities are
recomputed after it. With both flags the embeddings come first.

Progress goes to stderr. A re-index that is interrupted (Ctrl-C, a crash, kill -9) goes on where it
stopped when run again; what it had done is kept. The Status page of 'hopwise serve' has the same as
buttons.`,
		Example: "  EMBED_MODEL=text-embedding-3-large hopwise reindex --embeddings\n  LLM_MODEL=gpt-4.1 hopwise reindex --graph\n  hopwise reindex",
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, storeFlags, modelFlags)
	var opt graphrag.ReindexOptions
	cmd.Flags().BoolVar(&opt.Embeddings, "embeddings", false, "embed every passage and fact again (the default when no step is named)")
	cmd.Flags().BoolVar(&opt.Graph, "graph", false, "extract the graph of every passage again with the configured chat model")
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		if !opt.Embeddings && !opt.Graph {
			opt.Embeddings = true
		}
		return reindex(ctx, c.e, cfg, logger, opt)
	})
	return cmd
}

func reindex(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, opt graphrag.ReindexOptions) error {
	a, err := openReindexable(ctx, cfg, logger)
	if errors.Is(err, graphrag.ErrNoDimension) {
		return errors.New("nothing to re-index: the store holds no passages yet")
	}
	if err != nil {
		return err
	}
	defer a.Close()
	target := a.reindexer.Space()
	from := a.store.EmbeddingSpace()
	if opt.Embeddings {
		fmt.Fprintf(e.stderr, "re-embedding with %q (%d dimensions); searches use %q (%d) until it is done\n",
			target.Model, target.Dim, from.Model, from.Dim)
	}
	if opt.Graph {
		fmt.Fprintf(e.stderr, "extracting the graph again with %q; questions use the current graph until it is done\n", cfg.LLMModel)
	}
	var last time.Time
	var end graphrag.ReindexProgress
	err = a.reindexer.Run(ctx, opt, func(p graphrag.ReindexProgress) {
		end = p
		// Every passage extracted again took a model call: each is shown; embeddings at most once a second.
		if p.Finished || p.Step == graphrag.StepGraph || time.Since(last) >= time.Second {
			last = time.Now()
			printReindexProgress(e, p)
		}
	})
	if ctx.Err() != nil {
		fmt.Fprintln(e.stdout, "interrupted: run hopwise reindex again to go on where it stopped")
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	if opt.Embeddings {
		st, err := a.store.ReembedState(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "re-embedded %d passages and %d facts with %q (%d dimensions)\n",
			st.Chunks, st.Relations, target.Model, target.Dim)
	}
	if opt.Graph {
		fmt.Fprintf(e.stdout, "re-extracted the graph of %d passages with %q", end.Total, cfg.LLMModel)
		if end.Kept > 0 {
			fmt.Fprintf(e.stdout, "; %d whose extraction failed kept their part of the old graph", end.Kept)
		}
		fmt.Fprintln(e.stdout)
	}
	return nil
}

// printReindexProgress writes one progress line: "embeddings: done/total ..." or "graph: done/total ...".
func printReindexProgress(e *env, p graphrag.ReindexProgress) {
	switch p.Step {
	case graphrag.StepGraph:
		fmt.Fprintf(e.stderr, "  %s: %d/%d passages extracted again", p.Step, p.Done, p.Total)
		if p.Kept > 0 {
			fmt.Fprintf(e.stderr, " (%d failed and keep their graph)", p.Kept)
		}
		fmt.Fprintln(e.stderr)
	default:
		fmt.Fprintf(e.stderr, "  %s: %d/%d passages and facts\n", p.Step, p.Done, p.Total)
	}
}

// openReindexable is openApp for the commands that move a store to the configured embedding model
// (reindex, serve): a store built with another model or dimension opens in the space it recorded, so
// that search goes on with the model its vectors came from while the re-index runs, instead of being
// refused with ErrDimension.
func openReindexable(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	a, err := openApp(ctx, cfg, logger)
	if !errors.Is(err, graphrag.ErrDimension) {
		return a, err
	}
	client := newClient(cfg, logger)
	dim, err := embedDim(ctx, cfg, client)
	if err != nil {
		return nil, err
	}
	recorded := *cfg
	recorded.EmbedModel = ""
	if a, err = wire(ctx, &recorded, logger, client, 0); err != nil {
		return nil, err
	}
	a.cfg = cfg
	a.reindexer = graphrag.NewReindexer(a.store, client, graphrag.EmbeddingSpace{Model: cfg.EmbedModel, Dim: dim}, logger).WithGraph(a.graph)
	space := a.store.EmbeddingSpace()
	logger.Warn("the store's vectors come from another embedding model than the configured one: questions use that model "+
		"until `hopwise reindex --embeddings` (or Re-index on the Status page) has moved them",
		"store_model", space.Model, "store_dim", space.Dim, "configured_model", cfg.EmbedModel, "configured_dim", dim)
	return a, nil
}

// spaceEmbedder embeds questions and new passages for store with the model of its searched vectors:
// client once they are client's model's (of dimension dim), until then a client of the same endpoint
// asking for the model they came from.
func spaceEmbedder(cfg *config.Config, logger *slog.Logger, client *llm.Client, store graphrag.Store, dim int) *graphrag.SpaceEmbedder {
	space := graphrag.EmbeddingSpace{Model: cfg.EmbedModel, Dim: dim}
	return graphrag.NewSpaceEmbedder(store, client, space, func(model string) graphrag.Embedder {
		if model == "" || model == cfg.EmbedModel {
			return client
		}
		other := *cfg
		other.EmbedModel = model
		return newClient(&other, logger)
	})
}

// resumeReindex starts again, in the background, a re-embedding to the configured model or a
// re-extraction of the graph that a previous process left unfinished.
func resumeReindex(ctx context.Context, a *app) {
	st, err := a.reindexer.Status(ctx)
	if err != nil {
		a.logger.Warn("re-index state unreadable", "err", err)
		return
	}
	opt := graphrag.ReindexOptions{Embeddings: st.Resumable(), Graph: st.GraphResumable()}
	if !opt.Embeddings && !opt.Graph {
		return
	}
	a.logger.Info("resuming the re-index", "embeddings", opt.Embeddings, "model", st.Configured.Model, "dim", st.Configured.Dim,
		"staged", st.State.ChunksStaged+st.State.RelationsStaged, "total", st.State.Chunks+st.State.Relations,
		"graph", opt.Graph, "chat_model", st.GraphModel, "passages_staged", st.Graph.Staged, "passages", st.Graph.Chunks)
	if _, err := a.reindexer.Start(ctx, opt); err != nil {
		a.logger.Warn("re-index not resumed", "err", err)
	}
}

// searchIndexStatus says whose vectors searches use, and fails when they are not the configured model's
// (by name when its dimension is not known) or a re-index (of the embeddings or the graph) is under way,
// saying what to run.
func (a *app) searchIndexStatus(ctx context.Context) (string, error) {
	st, err := a.reindexer.Status(ctx)
	if err != nil {
		return "", err
	}
	active := st.State.Active
	where := fmt.Sprintf("%s (%d dimensions)", active.Model, active.Dim)
	needed := st.Needed || st.Configured.Dim == 0 && active.Model != "" && a.cfg.EmbedModel != "" && active.Model != a.cfg.EmbedModel
	switch {
	case st.State.Target.Dim > 0:
		return where, fmt.Errorf("a re-index to %q is under way or was interrupted (%d of %d passages and facts embedded): "+
			"run `hopwise reindex --embeddings` to finish it", st.State.Target.Model,
			st.State.ChunksStaged+st.State.RelationsStaged, st.State.Chunks+st.State.Relations)
	case needed:
		return where, fmt.Errorf("the configured embedding model is %q: run `hopwise reindex --embeddings`", a.cfg.EmbedModel)
	case st.Graph.Model != "":
		return where, fmt.Errorf("a re-extraction of the graph with %q is under way or was interrupted (%d of %d passages "+
			"extracted; questions use the old graph until it is done): run `hopwise reindex --graph` to finish it",
			st.Graph.Model, st.Graph.Staged, st.Graph.Chunks)
	}
	return where, nil
}
