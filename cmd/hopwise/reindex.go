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
		Short: "embed every passage again with the configured embedding model, of any dimension",
		Long: `Embed every passage and fact again with the configured embedding model (EMBED_MODEL, EMBED_DIM), for
instance after changing it to a model of another dimension, which the store otherwise refuses to open
with. The new vectors are kept beside the old ones until every passage has one, then searches move to
them at once (SQLite and Neo4j rebuild their vector index for the new dimension): until then questions
are still answered from the old vectors, embedded by the model that made them. Progress goes to stderr.
A re-index that is interrupted (Ctrl-C, a crash, kill -9) goes on where it stopped when run again; what
it had embedded is kept. The Status page of 'hopwise serve' has the same as a button.`,
		Example: "  EMBED_MODEL=text-embedding-3-large hopwise reindex --embeddings\n  hopwise reindex",
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, storeFlags, modelFlags)
	// Embedding is the one step a re-index has (extracting the graph again is not built): the flag names
	// it, as the stores' errors do, and changes nothing.
	cmd.Flags().Bool("embeddings", true, "embed every passage and fact again (what reindex does)")
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		return reindex(ctx, c.e, cfg, logger)
	})
	return cmd
}

func reindex(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger) error {
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
	fmt.Fprintf(e.stderr, "re-embedding with %q (%d dimensions); searches use %q (%d) until it is done\n",
		target.Model, target.Dim, from.Model, from.Dim)
	var last time.Time
	err = a.reindexer.Run(ctx, graphrag.ReindexOptions{Embeddings: true}, func(p graphrag.ReindexProgress) {
		if p.Finished || time.Since(last) >= time.Second {
			last = time.Now()
			fmt.Fprintf(e.stderr, "  %s: %d/%d passages and facts\n", p.Step, p.Done, p.Total)
		}
	})
	if ctx.Err() != nil {
		fmt.Fprintln(e.stdout, "interrupted: run hopwise reindex again to go on where it stopped")
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	st, err := a.store.ReembedState(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "re-embedded %d passages and %d facts with %q (%d dimensions)\n",
		st.Chunks, st.Relations, target.Model, target.Dim)
	return nil
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
	a.reindexer = graphrag.NewReindexer(a.store, client, graphrag.EmbeddingSpace{Model: cfg.EmbedModel, Dim: dim}, logger)
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

// resumeReindex starts again, in the background, a re-embedding to the configured model that a previous
// process left unfinished.
func resumeReindex(ctx context.Context, a *app) {
	st, err := a.reindexer.Status(ctx)
	if err != nil {
		a.logger.Warn("re-index state unreadable", "err", err)
		return
	}
	if !st.Resumable() {
		return
	}
	a.logger.Info("resuming the re-index", "model", st.Configured.Model, "dim", st.Configured.Dim,
		"staged", st.State.ChunksStaged+st.State.RelationsStaged, "total", st.State.Chunks+st.State.Relations)
	if _, err := a.reindexer.Start(ctx, graphrag.ReindexOptions{Embeddings: true}); err != nil {
		a.logger.Warn("re-index not resumed", "err", err)
	}
}

// searchIndexStatus says whose vectors searches use, and fails when they are not the configured model's
// (by name when its dimension is not known) or a re-index is under way, saying what to run.
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
	}
	return where, nil
}
