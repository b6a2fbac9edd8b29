package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

func (c *cli) docsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "list documents with their status and chunk, entity and relation counts",
		Long: `List the documents in the store, newest first, with their status and chunk, entity and relation
counts. It reads the store only: the model servers need not run.`,
		Example: "  hopwise docs\n  hopwise docs --json | jq '.[].Name'",
		Args:    cobra.NoArgs,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cfg := c.settings(cmd, storeFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		docs, err := storedDocuments(ctx, cfg, logger)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(c.e, docs)
		}
		tw := tabwriter.NewWriter(c.e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tSIZE\tCHUNKS\tENTITIES\tRELATIONS")
		for _, d := range docs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\n", d.ID, d.Name, docStatus(d), d.Size, d.Chunks, d.Entities, d.Relations)
		}
		return tw.Flush()
	})
	return cmd
}

// storedDocuments lists the store's documents; a store that holds nothing yet lists none.
func storedDocuments(ctx context.Context, cfg *config.Config, logger *slog.Logger) ([]graphrag.Document, error) {
	a, err := openStored(ctx, cfg, logger)
	if errors.Is(err, graphrag.ErrNoDimension) {
		return []graphrag.Document{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer a.Close()
	docs, err := a.store.Documents(ctx)
	if docs == nil && err == nil {
		docs = []graphrag.Document{} // JSON [] rather than null
	}
	return docs, err
}

func docStatus(d graphrag.Document) string {
	if d.Error != "" {
		return string(d.Status) + ": " + d.Error
	}
	return string(d.Status)
}

func printJSON(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (c *cli) showCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show DOC",
		Short: "show one document, by ID or file name, with its chunks",
		Long: `Show one document, named by its ID or its file name as 'hopwise docs' lists them, with its status,
counts and the start of each chunk. A name that several documents carry is refused with their IDs.`,
		Example: "  hopwise show handbook.md\n  hopwise show d3f1c2a4b5e6f708 --json",
		Args:    cobra.ExactArgs(1),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: the document and its chunks")
	cfg := c.settings(cmd, storeFlags)
	cmd.ValidArgsFunction = completeDocuments(cfg)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error {
		a, err := openStoredFor(ctx, cfg, logger, args[0])
		if err != nil {
			return err
		}
		defer a.Close()
		doc, err := graphrag.FindDocument(ctx, a.store, args[0])
		if err != nil {
			return err
		}
		chunks, err := a.store.DocumentChunks(ctx, doc.ID)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(c.e, map[string]any{"document": doc, "chunks": chunks})
		}
		tw := tabwriter.NewWriter(c.e.stdout, 2, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "ID\t%s\nName\t%s\nTitle\t%s\nFormat\t%s\nSize\t%d bytes\nStatus\t%s\nAdded\t%s\n",
			doc.ID, doc.Name, doc.Title, doc.Format, doc.Size, docStatus(doc), doc.CreatedAt.Format("2006-01-02 15:04:05"))
		fmt.Fprintf(tw, "Chunks\t%d (%d embedded, %d extracted, %d failed)\nEntities\t%d\nRelations\t%d\n",
			doc.Chunks, doc.ChunksEmbedded, doc.ChunksExtracted, doc.FailedChunks, doc.Entities, doc.Relations)
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, ch := range chunks {
			fmt.Fprintf(c.e.stdout, "\n[%d] %s\n    %s\n", ch.Ordinal, ch.ID, oneLine(ch.Text, 160))
		}
		return nil
	})
	return cmd
}

// openStoredFor is openStored for a command about one named document: a store that holds nothing yet
// has no such document.
func openStoredFor(ctx context.Context, cfg *config.Config, logger *slog.Logger, idOrName string) (*app, error) {
	a, err := openStored(ctx, cfg, logger)
	if errors.Is(err, graphrag.ErrNoDimension) {
		return nil, fmt.Errorf("no document with ID or name %q: the store is empty: %w", idOrName, graphrag.ErrNotFound)
	}
	return a, err
}

func (c *cli) deleteCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete DOC...",
		Short: "delete documents, by ID or file name, and everything only they support",
		Long: `Delete documents, each named by its ID or its file name as 'hopwise docs' lists them, with their
chunks, vectors and the entities and relations no other document supports. A name that several documents
carry is refused with their IDs; nothing is deleted then. It reads the store only: the model servers need
not run.`,
		Example: "  hopwise delete handbook.md\n  hopwise delete d3f1c2a4b5e6f708 notes.txt",
		Args:    cobra.MinimumNArgs(1),
	}
	cfg := c.settings(cmd, storeFlags)
	cmd.ValidArgsFunction = completeDocuments(cfg)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error {
		a, err := openStoredFor(ctx, cfg, logger, args[0])
		if err != nil {
			return err
		}
		defer a.Close()
		docs := make([]graphrag.Document, len(args))
		for i, arg := range args { // every name resolves before anything is deleted
			if docs[i], err = graphrag.FindDocument(ctx, a.store, arg); err != nil {
				return err
			}
		}
		for _, d := range docs {
			if err := a.ingester.Delete(ctx, d.ID); err != nil {
				return err
			}
			fmt.Fprintf(c.e.stdout, "deleted %s %s\n", d.ID, d.Name)
		}
		refreshCommunities(ctx, c.e, a)
		return nil
	})
	return cmd
}

// completeDocuments offers the stored documents' names for shell completion, reading the store only.
func completeDocuments(cfg *config.Config) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		docs, err := storedDocuments(cmd.Context(), cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			cobra.CompDebugln("hopwise: list documents: "+err.Error(), true)
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		names := make([]cobra.Completion, 0, len(docs))
		for _, d := range docs {
			names = append(names, cobra.CompletionWithDesc(d.Name, string(d.Status)))
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}
