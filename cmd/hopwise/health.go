package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
)

// healthCommand asks a running server whether it is up: the container health check, where no curl exists.
func (c *cli) healthCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "health",
		Short:   "exit 0 when the server at the listen address answers /healthz",
		Example: "  hopwise health --addr 127.0.0.1:8080 && echo up",
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, []string{"addr"})
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, _ *slog.Logger, _ []string) error {
		host, port, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return fmt.Errorf("listen address %q: %w", cfg.Addr, err)
		}
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/healthz", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/healthz answered %s", resp.Status)
		}
		fmt.Fprintln(c.e.stdout, "ok")
		return nil
	})
	return cmd
}
