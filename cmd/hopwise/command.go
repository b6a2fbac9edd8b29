package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hopwise/hopwise/config"
)

// env is what a command reads from and writes to: results on stdout, diagnostics and progress on stderr.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// cli builds the command tree for one command line.
type cli struct {
	e *env
	// lookup reads a setting: the environment, then the local models' env file (settingsLookup).
	lookup func(string) (string, bool)
	// ran is set once a command's own code starts: an error before that is in the command line (exit 2).
	ran bool
}

// errUsage marks an error in how a command was called or configured: exit status 2.
var errUsage = errors.New("usage")

// usageError wraps err as a usage error.
func usageError(err error) error { return fmt.Errorf("%w: %w", errUsage, err) }

// Groups of settings offered as flags. A command binds the groups it uses; every other setting still takes
// its value from the environment. Secrets (API keys, passwords, the CSRF secret) are no flags at all: a flag
// is visible to every user in `ps`.
var (
	logFlags   = []string{"log-level", "log-json"}
	storeFlags = []string{"data-dir", "neo4j-uri", "neo4j-user", "neo4j-database", "store-force", "workspace"}
	modelFlags = []string{"llm-base-url", "llm-model", "embed-base-url", "embed-model", "embed-dim", "llm-structured-mode",
		"llm-timeout", "llm-stream-idle-timeout", "llm-concurrency", "llm-retries", "llm-max-output-tokens",
		"llm-frequency-penalty", "llm-compact-schema"}
	agentFlags = []string{"web-search", "web-search-url", "rerank-url", "rerank-model", "max-loops", "max-revisions",
		"max-llm-calls", "max-tokens", "max-run-time", "hyde", "skip", "profile"}
	ingestFlags = []string{"ingest-workers", "max-upload-bytes", "entity-types", "lease"}
	serverFlags = []string{"addr", "public-host", "max-conns", "max-request-bytes", "max-question-chars",
		"ask-per-minute", "upload-per-minute", "admin-user", "trusted-proxies", "session-idle", "session-max"}
	remoteFlags = []string{"url"}
)

// settings binds the configuration for cmd: the flags of the named groups (and the log flags) on cmd, every
// setting's default from lookup. The returned Config is filled when cmd's flags are parsed.
func (c *cli) settings(cmd *cobra.Command, groups ...[]string) *config.Config {
	fs := flag.NewFlagSet(cmd.Name(), flag.ContinueOnError)
	cfg := config.Bind(fs, c.lookupFor(cmd.Name()))
	for _, g := range append([][]string{logFlags}, groups...) {
		for _, name := range g {
			f := fs.Lookup(name)
			if f == nil {
				panic("hopwise: no setting named " + name)
			}
			cmd.Flags().AddFlag(pflag.PFlagFromGoFlag(f))
		}
	}
	return cfg
}

// lookupFor is lookup with the log level at warn when nothing sets it, for every command but serve: a
// command's output is its result, not the store's log lines.
func (c *cli) lookupFor(command string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := c.lookup(name)
		if !ok && name == "HOPWISE_LOG_LEVEL" && command != "serve" {
			return "warn", true
		}
		return v, ok
	}
}

// action is a command's RunE: it validates cfg, builds the logger and calls fn.
func (c *cli) action(cfg *config.Config, fn func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := cfg.Validate(); err != nil {
			return usageError(err)
		}
		c.ran = true
		return fn(cmd.Context(), cfg, newLogger(c.e.stderr, cfg), args)
	}
}

// root is the command tree. To add a command: write a func (c *cli) xCommand() *cobra.Command that binds
// its settings with c.settings and runs through c.action, and list it here.
func (c *cli) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "hopwise",
		Short: "Hopwise answers questions from your own documents, with sources",
		Long: `Hopwise answers questions from your own documents, with sources.

With no command, hopwise serves the web app. Every setting is an environment variable; the settings a
command uses are also flags (see 'hopwise <command> --help'), which win over the environment. API keys and
passwords are read from the environment only (LLM_API_KEY, EMBED_API_KEY, NEO4J_PASSWORD, ...). When
<data-dir>/models/env exists (written by 'make models'), its settings apply below the environment's.`,
		Example: `  hopwise ingest --samples          # try it with the sample documents
  hopwise ask "How much compensation is due for a flight from Delhi to Munich?"
  hopwise docs
  hopwise serve --addr 127.0.0.1:9090`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(c.e.stdin)
	root.SetOut(c.e.stdout)
	root.SetErr(c.e.stderr)
	root.SetVersionTemplate("hopwise {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(c.serveCommand(), c.askCommand(), c.ingestCommand(), c.docsCommand(), c.showCommand(),
		c.deleteCommand(), c.retryCommand(), c.reindexCommand(), c.communitiesCommand(), c.searchCommand(), c.statusCommand(), c.evalCommand(), c.healthCommand(), c.versionCommand(), c.mcpCommand())
	return root
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
