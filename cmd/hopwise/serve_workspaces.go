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

	mu       sync.Mutex
	open     map[string]*handlers.Workspace
	stops    map[string]func()
	dropping map[string]bool // workspaces being deleted: not opened again meanwhile
	closed   bool
}

func newWorkspaceEngines(ctx context.Context, base *app, def *handlers.Workspace) *workspaceEngines {
	return &workspaceEngines{ctx: ctx, base: base, def: def, open: map[string]*handlers.Workspace{},
		stops: map[string]func(){}, dropping: map[string]bool{}}
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
	if w.dropping[id] {
		return nil, fmt.Errorf("workspace %s is being deleted", id)
	}
	st, err := workspaceStore(ctx, w.base.root, id)
	if err != nil {
		return nil, err
	}
	a := wireStore(w.base.cfg, w.base.logger.With("workspace", id), w.base.llm, w.base.dim, w.base.root, st, id)
	ag, err := newAgent(a)
	if err != nil {
		return nil, err
	}
	h, stop := startWorkspace(w.ctx, a, ag)
	w.open[id], w.stops[id] = h, stop
	a.logger.Info("workspace opened")
	return h, nil
}

// stop ends the jobs of every workspace opened.
func (w *workspaceEngines) stop() {
	w.mu.Lock()
	w.closed = true
	stops := w.stops
	w.stops = map[string]func(){}
	w.mu.Unlock()
	for _, stop := range stops {
		stop()
	}
}

// drop deletes everything of workspace id from the store (handlers.Deps.DropWorkspace): its jobs stop
// (an ingestion under way is cut off), then the store removes its documents, passages, graph,
// conversations, runs and jobs. Meanwhile a request in it is refused rather than opening it again.
func (w *workspaceEngines) drop(ctx context.Context, id string) error {
	if err := graphrag.CheckDroppable(id); err != nil {
		return err
	}
	dropper, ok := w.base.root.(graphrag.WorkspaceDropper)
	if !ok {
		return fmt.Errorf("this store (%T) cannot delete a workspace", w.base.root)
	}
	w.mu.Lock()
	if w.dropping[id] {
		w.mu.Unlock()
		return fmt.Errorf("workspace %s is already being deleted", id)
	}
	w.dropping[id] = true
	stop := w.stops[id]
	delete(w.stops, id)
	delete(w.open, id)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.dropping, id)
		w.mu.Unlock()
	}()
	if stop != nil {
		stop()
	}
	if err := dropper.DropWorkspace(ctx, id); err != nil {
		return err
	}
	w.base.logger.Info("workspace deleted", "workspace", id)
	return nil
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
