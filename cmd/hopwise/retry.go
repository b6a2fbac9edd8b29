package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

func (c *cli) retryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "retry DOC...",
		Short: "retry what failed in documents, by ID or file name, and wait until they are done",
		Long: `Retry what failed in documents, each named by its ID or its file name as 'hopwise docs' lists them: a
failed document resumes from the step it failed in, and a document whose passages failed extraction has
those passages, and only those, extracted again. Each document is reported on stdout as it ends, as by
'hopwise ingest'. A document with nothing failed is refused; every name resolves before anything is retried.`,
		Example: "  hopwise retry handbook.md\n  hopwise retry d3f1c2a4b5e6f708 notes.txt",
		Args:    cobra.MinimumNArgs(1),
	}
	cfg := c.settings(cmd, storeFlags, modelFlags, ingestFlags)
	cmd.ValidArgsFunction = completeDocuments(cfg)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error {
		return retry(ctx, c.e, cfg, logger, args)
	})
	return cmd
}

func retry(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, args []string) error {
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	docs := make([]graphrag.Document, len(args))
	for i, arg := range args {
		if docs[i], err = graphrag.FindDocument(ctx, a.store, arg); err != nil {
			return err
		}
	}
	progress, unsubscribe := a.ingester.Subscribe()
	defer unsubscribe()
	results := make(chan submission, len(docs))
	for _, d := range docs {
		_, err := a.ingester.Retry(ctx, d.ID)
		results <- submission{source: d.Name, docID: d.ID, err: err}
	}
	close(results)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.ingester.Run(runCtx) }()
	failed, err := newIngestWait(e, a.store).await(ctx, results, progress, pollEvery)
	stop()
	<-done
	if err != nil {
		return err
	}
	refreshCommunities(ctx, e, a)
	if failed > 0 {
		return fmt.Errorf("%d of %d document(s) failed or had nothing to retry", failed, len(docs))
	}
	return nil
}
