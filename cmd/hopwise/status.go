package main

import (
	"context"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/hopwise/hopwise/config"
)

func statusCommand() command {
	return command{
		name:    "status",
		summary: "show the effective configuration (secrets masked) and whether the model and store answer",
		exec: func(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, _ []string) error {
			a, err := openApp(ctx, cfg, logger)
			if err != nil {
				return err
			}
			defer a.Close()
			st := a.status(ctx)
			tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
			for _, c := range st.Checks {
				state := "ok"
				if !c.OK {
					state = "FAILING"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Configured, state, c.Detail)
			}
			fmt.Fprintln(tw)
			for _, s := range cfg.Effective() {
				fmt.Fprintf(tw, "%s\t%s\n", s.Env, s.Value)
			}
			return tw.Flush()
		},
	}
}
