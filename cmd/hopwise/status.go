package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

func (c *cli) statusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "show the effective configuration (secrets masked) and whether the model and store answer",
		Long: `Show whether the chat model, the embedding model and the store answer, then every setting's effective
value (secrets masked). The store opens with the dimension it recorded: the embedding model is only pinged.`,
		Example: "  hopwise status\n  NEO4J_URI=bolt://127.0.0.1:7687 hopwise status",
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, storeFlags, modelFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		a, err := openStored(ctx, cfg, logger)
		if err != nil && !errors.Is(err, graphrag.ErrNoDimension) {
			return err
		}
		defer a.Close()
		st := a.status(ctx)
		tw := tabwriter.NewWriter(c.e.stdout, 2, 4, 2, ' ', 0)
		for _, ch := range st.Checks {
			state := "ok"
			if !ch.OK {
				state = "FAILING"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ch.Name, ch.Configured, state, ch.Detail)
		}
		fmt.Fprintln(tw)
		for _, s := range cfg.Effective() {
			fmt.Fprintf(tw, "%s\t%s\n", s.Env, s.Value)
		}
		return tw.Flush()
	})
	return cmd
}
