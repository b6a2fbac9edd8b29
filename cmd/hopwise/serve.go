package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/handlers"
)

func serveCommand() command {
	return command{
		name:    "serve",
		summary: "serve the web app (chat, documents, graph explorer, status)",
		exec:    serve,
	}
}

func serve(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, _ []string) error {
	a, err := openApp(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	h := handlers.New(handlers.Deps{Logger: logger, Status: a.status})
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	srv := handlers.NewHTTPServer(cfg.Addr, h)
	fmt.Fprintf(e.stdout, "Hopwise is running at http://%s (Ctrl-C to stop)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: letting running requests finish", "grace", "20s")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
