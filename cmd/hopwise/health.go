package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hopwise/hopwise/config"
)

// healthCommand asks a running server whether it is up: the container health check, where no curl exists.
func healthCommand() command {
	return command{
		name:    "health",
		summary: "exit 0 when the server at the listen address answers /healthz",
		exec: func(ctx context.Context, e *env, cfg *config.Config, _ *slog.Logger, _ []string) error {
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
			fmt.Fprintln(e.stdout, "ok")
			return nil
		},
	}
}
