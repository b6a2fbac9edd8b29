// Package webtest runs Hopwise's web app for tests: the real handlers over a real SQLite store in a temporary
// directory, the real ingester and agent, and llm/llmtest as the model, scripted for the demo corpus.
package webtest

import (
	"cmp"
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/auth/authtest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
	"github.com/hopwise/hopwise/urlfetch"
)

// Options adjust the app under test.
type Options struct {
	Limits       handlers.Limits
	TokenDelay   time.Duration     // slows the streamed answer, to test stopping it
	ExtractDelay time.Duration     // slows ingestion, to watch it in progress
	Answers      map[string]string // question substring -> answer markdown the model writes
	Logger       *slog.Logger
	URLFetch     urlfetch.Options // Allow lets pages be added from a test server on 127.0.0.1
	PublicHosts  []string         // names served besides the loopback names
	AnswerGate   <-chan struct{}  // when set, streamed answers wait until it is closed (App.AnswersWaiting)
	ModelCalls   int              // chat calls in flight at once (default 8; llm.LocalConcurrency is the local server's)
	// Demo starts from a copy of a store that already holds the demo corpus, ingested once per test binary.
	Demo bool
	// ReindexTo, when set, is the embedding model the status page's re-index moves the store to: new-embed
	// of ReindexDim dimensions at that server (App.Reindexer). Without it a re-index embeds again with
	// the app's own model.
	ReindexTo  *llmtest.Server
	ReindexDim int
	// ReextractWith, when set, is the chat model (second-model at that server) the status page's re-index
	// extracts the graph again with.
	ReextractWith *llmtest.Server
	// SummaryDelay slows each community summary call down, for tests that watch a run's progress.
	SummaryDelay time.Duration
	// StoreFrom opens this SQLite file, with the embedding model and dimension it recorded, instead of a
	// new store (a copy the test made: it is written to). Questions' vectors then do not match its own.
	StoreFrom string
	// Auth configures the accounts (App.Auth): none exist at first, so nobody signs in unless
	// Auth.Required is set or the test creates one. Its hash defaults to authtest.FastHash.
	Auth           auth.Options
	TrustedProxies []netip.Prefix
	// Workspaces serves every workspace, each with its own parts (handlers.Deps.Workspaces), as `hopwise
	// serve` does; without it the app has the default workspace alone.
	Workspaces bool
}

// App is a running web app without its HTTP server: Handler serves requests.
type App struct {
	Model    *llmtest.Server
	Store    *sqlite.Store
	Ingester *graphrag.Ingester
	// Reindexer is the status page's re-index (Options.ReindexTo).
	Reindexer *graphrag.Reindexer
	Auth      *auth.Service
	// Refresher recomputes the communities after documents are read or deleted, as `hopwise serve`'s does
	// (with delays of 100 ms and 10 s); Summaries writes their summaries for the graph page.
	Refresher *graphrag.CommunityRefresher
	Summaries *graphrag.SummaryJob
	Handler   http.Handler
	closing   chan struct{}
	script    *script
	spaces    *workspaces
	deps      handlers.Deps
	agent     *agent.Agent
}

// Peer is a second server over the app's store, as another `hopwise serve` process sharing the store is:
// its own answers being written, its own streams and its own name on the leases it takes, the same store,
// model and documents.
func (a *App) Peer() http.Handler {
	deps := a.deps
	deps.Chat = agent.NewChat(a.agent, a.Store)
	return handlers.New(deps)
}

// AnswersWaiting is how many streamed answers are held at Options.AnswerGate.
func (a *App) AnswersWaiting() int { return int(a.script.waiting.Load()) }

// New builds the app; everything is stopped and removed when the test ends.
func New(t testing.TB, opt Options) *App {
	t.Helper()
	logger := opt.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	model, sc := scriptedModel(t, opt)
	client := llm.New(llm.Config{
		BaseURL: model.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 20 * time.Second, StreamIdleTimeout: 20 * time.Second, MaxConcurrency: cmp.Or(opt.ModelCalls, 8),
	}, logger)
	ctx, cancel := context.WithCancel(context.Background())
	path := filepath.Join(t.TempDir(), "hopwise.db")
	if opt.Demo {
		copyDemo(t, client, path)
	}
	open := storeOptions
	if opt.StoreFrom != "" {
		path, open = opt.StoreFrom, sqlite.Options{}
	}
	store, err := sqlite.Open(ctx, path, open, logger)
	if err != nil {
		cancel()
		t.Fatalf("open store: %v", err)
	}
	embed, reindexer := reindexWith(store, client, opt, logger)
	withReextraction(reindexer, embed, opt, logger)
	ingester := graphrag.NewIngester(store, embed, extractorOf(client, store, graphrag.DefaultWorkspace), graphrag.IngestOptions{
		Workers: 2, MaxBytes: opt.Limits.MaxUploadBytes,
	}, logger)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ingester.Run(ctx)
	}()
	communities := graphrag.NewCommunities(store, client, logger)
	refresher := graphrag.NewCommunityRefresher(communities, logger).WithDelays(100*time.Millisecond, 10*time.Second)
	progress, unsubscribe := ingester.Subscribe()
	refreshed := make(chan struct{})
	go func() {
		defer close(refreshed)
		refresher.Run(ctx, progress)
	}()
	summaries := graphrag.NewSummaryJob(ctx, communities)
	retriever := graphrag.NewRetriever(store, embed)
	ag := agent.New(client, retriever, nil, nil, agent.Config{MaxRunTime: time.Minute}, logger).WithCollection(store)
	if opt.Auth.Hash == (auth.HashParams{}) {
		opt.Auth.Hash = authtest.FastHash
	}
	accounts, err := auth.New(ctx, store, opt.Auth)
	if err != nil {
		cancel()
		t.Fatalf("auth: %v", err)
	}
	a := &App{Model: model, Store: store, Ingester: ingester, Reindexer: reindexer, Auth: accounts,
		Refresher: refresher, Summaries: summaries, closing: make(chan struct{}), script: sc}
	deps := handlers.Deps{
		Logger: logger, Status: func(context.Context) handlers.Status { return status() },
		Store: store, Ingester: ingester, Chat: agent.NewChat(ag, store), Retriever: retriever, Limits: opt.Limits, Closing: a.closing,
		URLFetch: opt.URLFetch, PublicHosts: opt.PublicHosts, Auth: accounts, TrustedProxies: opt.TrustedProxies,
		Summaries: summaries, Reindex: reindexer,
	}
	if opt.Workspaces {
		a.spaces = &workspaces{ctx: ctx, store: store, client: client, logger: logger, open: map[string]*handlers.Workspace{},
			def: &handlers.Workspace{Store: deps.Store, Ingester: deps.Ingester, Chat: deps.Chat, Retriever: deps.Retriever,
				Reindex: deps.Reindex, Summaries: deps.Summaries, Status: deps.Status}}
		deps.Workspaces, deps.DropWorkspace = a.spaces.workspace, a.spaces.drop
	}
	a.Handler = handlers.New(deps)
	a.deps, a.agent = deps, ag
	t.Cleanup(func() {
		a.Close()
		cancel()
		<-done
		if a.spaces != nil {
			a.spaces.wg.Wait()
		}
		unsubscribe()
		<-refreshed
		_ = summaries.Wait(context.Background())
		reindexer.Wait()
		store.Close()
	})
	return a
}

// ScriptedModel starts the scripted model alone (the agent's tasks, extraction, embeddings of dimension
// 64, as New uses it), for tests that run the hopwise binary against it.
func ScriptedModel(t testing.TB, opt Options) *llmtest.Server {
	t.Helper()
	model, _ := scriptedModel(t, opt)
	return model
}

func scriptedModel(t testing.TB, opt Options) (*llmtest.Server, *script) {
	t.Helper()
	sc := &script{gate: opt.AnswerGate, tokenDelay: opt.TokenDelay, extractDelay: opt.ExtractDelay, summaryDelay: opt.SummaryDelay, answers: opt.Answers}
	model := llmtest.New(t, llmtest.WithEmbedDim(storeOptions.EmbedDim))
	model.Handle(sc.reply)
	return model, sc
}

// storeOptions: the scripted vectors hash words into 256 dimensions; at 64, unrelated sentences collided so
// often that the graph walk's fact seeds (compared by vector) pointed anywhere.
var storeOptions = sqlite.Options{EmbedDim: 256, EmbedModel: "test-embed"}

// Close ends the open progress streams, as a server shutting down does.
func (a *App) Close() {
	select {
	case <-a.closing:
	default:
		close(a.closing)
	}
}

func status() handlers.Status {
	return handlers.Status{
		Checks: []handlers.Check{
			{Name: "model", Configured: "test-model at llmtest", OK: true},
			{Name: "store", Configured: "sqlite", OK: true},
			{Name: "web search", Configured: "off", OK: true},
		},
		Settings: map[string]string{"LLM_MODEL": "test-model", "LLM_API_KEY": "sk-…ab"},
	}
}

// DemoCorpus is a folder holding the sample documents (package samples), written for the test.
func DemoCorpus(t testing.TB) string {
	t.Helper()
	dir, err := samples.WriteDir(t.TempDir())
	if err != nil {
		t.Fatalf("sample documents: %v", err)
	}
	return dir
}

// WaitDone waits until every document is done or failed.
func (a *App) WaitDone(t testing.TB, within time.Duration) []graphrag.Document {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		docs, err := a.Store.Documents(context.Background())
		if err != nil {
			t.Fatalf("documents: %v", err)
		}
		finished := 0
		for _, d := range docs {
			if d.Status.Finished() {
				finished++
			}
		}
		if finished == len(docs) {
			return docs
		}
		if time.Now().After(deadline) {
			t.Fatalf("documents not finished after %s: %+v", within, docs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
