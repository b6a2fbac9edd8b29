package webtest

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/llm"
)

// workspaces open the parts of the app's workspaces other than the default as `hopwise serve` does: each
// its store (a workspace of App.Store), ingester with its jobs running, retriever, agent and community
// summaries, made on the first request in it.
type workspaces struct {
	ctx    context.Context
	store  graphrag.Store
	client *llm.Client
	logger *slog.Logger
	def    *handlers.Workspace

	mu    sync.Mutex
	open  map[string]*handlers.Workspace
	stops map[string]context.CancelFunc
	done  map[string]chan struct{}
	wg    sync.WaitGroup
}

func (w *workspaces) workspace(ctx context.Context, id string) (*handlers.Workspace, error) {
	if id == graphrag.DefaultWorkspace {
		return w.def, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if h := w.open[id]; h != nil {
		return h, nil
	}
	st, err := w.store.Workspace(ctx, id)
	if err != nil {
		return nil, err
	}
	ingester := graphrag.NewIngester(st, w.client, extractorOf(w.client, w.store, id), graphrag.IngestOptions{Workers: 2}, w.logger)
	ctx, stop := context.WithCancel(w.ctx)
	done := make(chan struct{})
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer close(done)
		_ = ingester.Run(ctx)
	}()
	if w.stops == nil {
		w.stops, w.done = map[string]context.CancelFunc{}, map[string]chan struct{}{}
	}
	w.stops[id], w.done[id] = stop, done
	retriever := graphrag.NewRetriever(st, w.client)
	ag := agent.New(w.client, retriever, nil, nil, agent.Config{MaxRunTime: time.Minute}, w.logger).WithCollection(st)
	summaries := graphrag.NewSummaryJob(w.ctx, graphrag.NewCommunities(st, w.client, w.logger))
	h := &handlers.Workspace{Store: st, Ingester: ingester, Chat: agent.NewChat(ag, st), Retriever: retriever,
		Summaries: summaries, Status: w.def.Status}
	w.open[id] = h
	return h, nil
}

// drop stops workspace id's ingestion and removes everything of it from the store, as `hopwise serve`
// does when an admin deletes it (handlers.Deps.DropWorkspace).
func (w *workspaces) drop(ctx context.Context, id string) error {
	w.mu.Lock()
	stop, done := w.stops[id], w.done[id]
	delete(w.open, id)
	delete(w.stops, id)
	delete(w.done, id)
	w.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
	return w.store.(graphrag.WorkspaceDropper).DropWorkspace(ctx, id)
}

// extractorOf is the extractor of workspace id, which asks for the workspace's entity types as `hopwise
// serve`'s does.
func extractorOf(client *llm.Client, store graphrag.Store, id string) *graphrag.LLMExtractor {
	x := graphrag.NewLLMExtractor(client)
	if reg, ok := store.(auth.Store); ok {
		x.WithEntityTypeSource(auth.EntityTypeSource(reg, id))
	}
	return x
}

// Workspace is the store of workspace id (an admin creates it first with Auth.CreateWorkspace).
func (a *App) Workspace(t testing.TB, id string) graphrag.Store {
	t.Helper()
	st, err := a.Store.Workspace(context.Background(), id)
	if err != nil {
		t.Fatalf("workspace %s: %v", id, err)
	}
	return st
}
