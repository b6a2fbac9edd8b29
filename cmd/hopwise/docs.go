package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/hopwise/hopwise/config"
)

func docsCommand() command {
	var asJSON bool
	return command{
		name:    "docs",
		summary: "list documents with their status and chunk, entity and relation counts",
		flags:   func(fs *flag.FlagSet) { fs.BoolVar(&asJSON, "json", false, "print JSON") },
		exec: func(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, _ []string) error {
			a, err := openApp(ctx, cfg, logger)
			if err != nil {
				return err
			}
			defer a.Close()
			docs, err := a.store.Documents(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(docs)
			}
			tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tSIZE\tCHUNKS\tENTITIES\tRELATIONS")
			for _, d := range docs {
				status := string(d.Status)
				if d.Error != "" {
					status += ": " + d.Error
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\n", d.ID, d.Name, status, d.Size, d.Chunks, d.Entities, d.Relations)
			}
			return tw.Flush()
		},
	}
}

func deleteCommand() command {
	return command{
		name:    "delete",
		summary: "delete a document and everything only it supports",
		args:    "DOC-ID...",
		exec: func(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, args []string) error {
			if len(args) == 0 {
				return errUsage
			}
			a, err := openApp(ctx, cfg, logger)
			if err != nil {
				return err
			}
			defer a.Close()
			for _, id := range args {
				if _, err := a.store.Document(ctx, id); err != nil {
					return fmt.Errorf("%s: %w", id, err)
				}
				if err := a.ingester.Delete(ctx, id); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "deleted %s\n", id)
			}
			return nil
		},
	}
}
