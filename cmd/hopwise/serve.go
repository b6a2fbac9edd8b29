package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/hopwise/hopwise/handlers"
)

func (c *cli) serveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "serve the web app (chat, documents, graph explorer, status); the default command",
		Long: `Serve the web app: chat, documents, graph explorer and status, on 127.0.0.1:8080 unless --addr says
otherwise. It also ingests what is uploaded, resuming interrupted documents. Logs at info level.`,
		Example: "  hopwise serve\n  hopwise serve --addr 127.0.0.1:9090 --data-dir /srv/hopwise",
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, storeFlags, modelFlags, agentFlags, ingestFlags, serverFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		return serve(ctx, c.e, cfg, logger)
	})
	return cmd
}

// shutdownGrace is how long answers being written may take to finish once the server is asked to stop;
// after it they are cancelled, and stored as cancelled.
const shutdownGrace = 20 * time.Second

// followInterval is how often a server checks whether another process re-embedded its store.
const followInterval = 2 * time.Second

func serve(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger) error {
	if cfg.Workspace != "" && cfg.Workspace != graphrag.DefaultWorkspace {
		return usageError(fmt.Errorf("serve serves every workspace: --workspace (HOPWISE_WORKSPACE) names the one the other commands act in"))
	}
	a, ag, err := openAgentWith(ctx, cfg, logger, openReindexable)
	if err != nil {
		return err
	}
	defer a.Close()
	if tools, err := parse.OCR(); err != nil {
		logger.Info("scanned PDFs are not read (no OCR)", "reason", err)
	} else {
		logger.Info("scanned PDFs are read with OCR", "ocr", tools.Version)
	}

	accounts, setup, err := openAccounts(ctx, a.root, cfg, logger)
	if err != nil {
		return err
	}
	proxies, err := handlers.ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
		return usageError(err)
	}

	// Communities are recomputed after documents change; their summaries are written from the Graph page.
	summaries, stopCommunities := startCommunities(context.WithoutCancel(ctx), a)
	defer stopCommunities()

	// A re-index runs until it ends or the server stops; an unfinished one resumes.
	reindexCtx, stopReindex := context.WithCancel(context.WithoutCancel(ctx))
	defer func() { stopReindex(); a.reindexer.Wait() }()
	resumeReindex(reindexCtx, a)
	// A re-embedding committed by `hopwise reindex` in another process is followed: searches move to it.
	if f, ok := a.store.(interface {
		FollowSpace(ctx context.Context, interval time.Duration)
	}); ok {
		go f.FollowSpace(reindexCtx, followInterval)
	}

	closing := make(chan struct{})
	deps := handlers.Deps{
		Logger: logger, Status: a.status, Store: a.store, Ingester: a.ingester, Chat: agent.NewChat(ag, a.store).WithLease(cfg.Lease),
		Retriever: a.retriever, Reindex: a.reindexer,
		Limits: handlers.Limits{
			MaxUploadBytes: cfg.MaxUploadBytes, MaxRequestBytes: cfg.MaxRequestBytes, MaxQuestionChars: cfg.MaxQuestionChars,
			AskPerMinute: cfg.AskPerMinute, UploadPerMinute: cfg.UploadPerMinute, MaxRunning: cfg.MaxAnswers,
		},
		PublicHosts: strings.Split(cfg.PublicHost, ","), Secret: []byte(cfg.Secret),
		Closing: closing, Auth: accounts, TrustedProxies: proxies, Summaries: summaries,
	}
	// Every request acts in a workspace: the default one's parts are the above, another's are opened on its
	// first request and run their jobs until the server stops.
	others := newWorkspaceEngines(context.WithoutCancel(ctx), a, &handlers.Workspace{Store: deps.Store, Ingester: deps.Ingester,
		Chat: deps.Chat, Retriever: deps.Retriever, Reindex: deps.Reindex, Summaries: deps.Summaries, Status: deps.Status})
	defer others.stop()
	deps.Workspaces, deps.DropWorkspace, deps.EntityTypes = others.workspace, others.drop, cfg.EntityTypeList()
	h := handlers.New(deps)
	ln, err := handlers.Listen(cfg.Addr, cfg.MaxConns)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	// Requests live in their own context: a signal lets them finish within the grace period, then cancels them.
	reqCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	srv := handlers.NewHTTPServer(cfg.Addr, h)
	srv.BaseContext = func(net.Listener) context.Context { return reqCtx }

	ingestCtx, stopIngest := context.WithCancel(context.WithoutCancel(ctx))
	ingestDone := make(chan struct{})
	go func() {
		defer close(ingestDone)
		if err := a.ingester.Run(ingestCtx); err != nil {
			logger.Error("ingest stopped", "err", err)
		}
	}()
	defer func() {
		stopIngest() // interrupted documents resume on the next start
		<-ingestDone
	}()

	fmt.Fprintf(e.stdout, "Hopwise is running at http://%s (Ctrl-C to stop)\n", ln.Addr())
	if setup != "" {
		logger.Warn("no account exists yet: open the one-time setup link to choose the first admin's password",
			"user", cfg.AdminUser, "link", setupURL(cfg, ln.Addr().String(), setup))
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	close(closing)
	logger.Info("shutting down: letting answers being written finish", "grace", shutdownGrace)
	if err := shutdown(srv, shutdownGrace); err != nil {
		logger.Warn("answers still running after the grace period: cancelling them", "err", err)
		cancelRequests()
		if err := shutdown(srv, 5*time.Second); err != nil {
			srv.Close()
		}
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func shutdown(srv *http.Server, within time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	return srv.Shutdown(ctx)
}
