package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers"
)

// workspaceStore is the store of the workspace a command acts in (--workspace): the store itself for the
// default workspace. Another must exist (an admin creates it on the Admin page), so that a mistyped name
// does not start an empty workspace nobody sees.
func workspaceStore(ctx context.Context, root graphrag.Store, id string) (graphrag.Store, error) {
	if id == "" || id == graphrag.DefaultWorkspace {
		return root, nil
	}
	if err := graphrag.CheckWorkspaceID(id); err != nil {
		return nil, usageError(err)
	}
	if reg, ok := root.(auth.Store); ok {
		all, err := reg.Workspaces(ctx)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, w := range all {
			ids = append(ids, w.ID)
		}
		if !slices.Contains(ids, id) {
			return nil, usageError(fmt.Errorf("there is no workspace %q (there are: %s); an admin creates workspaces on the Admin page of `hopwise serve`",
				id, strings.Join(ids, ", ")))
		}
	}
	return root.Workspace(ctx, id)
}

// workspaceEngines are the parts of each workspace other than the default that `hopwise serve` opened: a
// workspace's store, ingester (with its jobs running), retriever, agent, community summaries and re-index,
// made on the first request in it and stopped with the server.
type workspaceEngines struct {
	ctx  context.Context
	base *app // the default workspace's; its store is the root every workspace belongs to
	def  *handlers.Workspace

	mu     sync.Mutex
	open   map[string]*handlers.Workspace
	stops  []func()
	closed bool
}

func newWorkspaceEngines(ctx context.Context, base *app, def *handlers.Workspace) *workspaceEngines {
	return &workspaceEngines{ctx: ctx, base: base, def: def, open: map[string]*handlers.Workspace{}}
}

// workspace returns the parts of workspace id, opening them on first use (handlers.Deps.Workspaces).
func (w *workspaceEngines) workspace(ctx context.Context, id string) (*handlers.Workspace, error) {
	if id == graphrag.DefaultWorkspace {
		return w.def, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.open[id]; h != nil {
		return h, nil
	}
	if w.closed {
		return nil, fmt.Errorf("workspace %s: the server is stopping", id)
	}
	st, err := workspaceStore(ctx, w.base.root, id)
	if err != nil {
		return nil, err
	}
	a := wireStore(w.base.cfg, w.base.logger.With("workspace", id), w.base.llm, w.base.dim, w.base.root, st)
	ag, err := newAgent(a)
	if err != nil {
		return nil, err
	}
	h, stop := startWorkspace(w.ctx, a, ag)
	w.open[id], w.stops = h, append(w.stops, stop)
	a.logger.Info("workspace opened")
	return h, nil
}

// stop ends the jobs of every workspace opened.
func (w *workspaceEngines) stop() {
	w.mu.Lock()
	w.closed = true
	stops := w.stops
	w.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// startWorkspace runs a workspace's jobs (ingestion, interrupted documents resumed; communities after
// documents change; an unfinished re-index) until stop, and returns its parts for the handlers.
func startWorkspace(ctx context.Context, a *app, ag *agent.Agent) (*handlers.Workspace, func()) {
	summaries, stopCommunities := startCommunities(ctx, a)
	reindexCtx, stopReindex := context.WithCancel(ctx)
	resumeReindex(reindexCtx, a)
	ingestCtx, stopIngest := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.ingester.Run(ingestCtx); err != nil {
			a.logger.Error("ingest stopped", "err", err)
		}
	}()
	h := &handlers.Workspace{Store: a.store, Ingester: a.ingester, Chat: agent.NewChat(ag, a.store).WithLease(a.cfg.Lease),
		Retriever: a.retriever, Reindex: a.reindexer, Summaries: summaries, Status: a.status}
	return h, func() {
		stopIngest()
		<-done
		stopCommunities()
		stopReindex()
		a.reindexer.Wait()
	}
}
