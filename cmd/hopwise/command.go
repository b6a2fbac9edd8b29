package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/hopwise/hopwise/config"
)

// env is what a command reads from and writes to.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand: its flags are parsed into cfg plus whatever extra flags it declares.
type command struct {
	name, summary, args string
	flags               func(fs *flag.FlagSet) // extra flags beyond the configuration
	exec                func(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, args []string) error
}

func commands() []command {
	return []command{serveCommand(), askCommand(), ingestCommand(), docsCommand(), deleteCommand(), searchCommand(), statusCommand(), evalCommand(), healthCommand()}
}

// errUsage marks an error in how a command was called: exit status 2.
var errUsage = errors.New("usage")

func (c command) run(ctx context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("hopwise "+c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	cfg := config.Bind(fs, os.LookupEnv)
	if c.flags != nil {
		c.flags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: hopwise %s [flags] %s\n\n%s\n\nFlags:\n", c.name, c.args, c.summary)
		fs.PrintDefaults()
	}
	for _, a := range args {
		if isHelp(a) {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return 0
		}
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(e.stderr, "hopwise:", err)
		return 2
	}
	logger := newLogger(e.stderr, cfg)
	if err := c.exec(ctx, e, cfg, logger, fs.Args()); err != nil {
		if errors.Is(err, errUsage) {
			fs.Usage()
			return 2
		}
		fmt.Fprintf(e.stderr, "hopwise %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

func newLogger(w io.Writer, cfg *config.Config) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(strings.ToUpper(cfg.LogLevel))); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
