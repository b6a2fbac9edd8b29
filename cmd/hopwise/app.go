package main

import (
	"context"
	"log/slog"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/handlers"
)

// app is the process's wiring: every long-lived part, built by hand from the configuration.
type app struct {
	cfg    *config.Config
	logger *slog.Logger
}

func openApp(_ context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	return &app{cfg: cfg, logger: logger}, nil
}

// Close releases what openApp opened.
func (a *app) Close() error { return nil }

func (a *app) status(_ context.Context) handlers.Status {
	st := handlers.Status{Settings: map[string]string{}}
	for _, e := range a.cfg.Effective() {
		st.Settings[e.Env] = e.Value
	}
	return st
}
