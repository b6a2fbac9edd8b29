package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/neo4j"
	"github.com/hopwise/hopwise/graphrag/parse"
	"github.com/hopwise/hopwise/graphrag/resolve"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/llm"
)

// app is the process's wiring: every long-lived part, built by hand from the configuration.
type app struct {
	cfg       *config.Config
	logger    *slog.Logger
	llm       *llm.Client
	store     graphrag.Store // the workspace's the command acts in
	root      graphrag.Store // the store every workspace belongs to (store for the default workspace)
	dim       int            // the dimension the store was opened with (0: the one it recorded)
	retriever *graphrag.Retriever
	ingester  *graphrag.Ingester
	reindexer *graphrag.Reindexer   // moves the store to the configured models (reindex.go)
	graph     graphrag.GraphReindex // what the reindexer extracts the graph again with
}

// openApp wires everything for a command that embeds: with no EMBED_DIM configured it asks the embedding
// model for its dimension.
func openApp(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	client := newClient(cfg, logger)
	dim, err := embedDim(ctx, cfg, client)
	if err != nil {
		return nil, err
	}
	return wire(ctx, cfg, logger, client, dim)
}

// openStored wires everything for a command that does not embed (docs, show, delete, status): the store opens
// with EMBED_DIM or the dimension it recorded, whatever embedding model is configured (no vector is
// compared), and the model is not contacted. A store that holds nothing yet is not created: the app then
// has no store and the error wraps graphrag.ErrNoDimension.
func openStored(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, error) {
	client := newClient(cfg, logger)
	anyModel := *cfg
	anyModel.EmbedModel = ""
	a, err := wire(ctx, &anyModel, logger, client, cfg.EmbedDim)
	if errors.Is(err, graphrag.ErrNoDimension) {
		return &app{cfg: cfg, logger: logger, llm: client}, err
	}
	if a != nil {
		a.cfg = cfg
	}
	return a, err
}

func newClient(cfg *config.Config, logger *slog.Logger) *llm.Client {
	return llm.New(llm.Config{
		BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel,
		EmbedBaseURL: cfg.EmbedBaseURL, EmbedAPIKey: cfg.EmbedAPIKey, EmbedModel: cfg.EmbedModel,
		StructuredMode: cfg.StructuredMode, Timeout: cfg.LLMTimeout, StreamIdleTimeout: cfg.StreamIdleTimeout,
		MaxConcurrency: cfg.LLMConcurrency, EmbedConcurrency: cfg.EmbedConcurrency,
		MaxRetries: cfg.LLMRetries, MaxOutputTokens: cfg.LLMMaxOutput,
		FrequencyPenalty: float32(cfg.LLMFreqPenalty), CompactSchema: cfg.LLMCompactSchema,
	}, logger)
}

// wire opens the store for embeddings of dimension dim (0: the dimension the store recorded) and builds the
// parts that read and fill it.
func wire(ctx context.Context, cfg *config.Config, logger *slog.Logger, client *llm.Client, dim int) (*app, error) {
	root, err := openStore(ctx, cfg, dim, logger)
	if err != nil {
		return nil, err
	}
	store, err := workspaceStore(ctx, root, cfg.Workspace)
	if err != nil {
		root.Close()
		return nil, err
	}
	return wireStore(cfg, logger, client, dim, root, store, cmp.Or(cfg.Workspace, graphrag.DefaultWorkspace)), nil
}

// wireStore builds the parts that read and fill store, workspace ws of root. Its extraction asks for the
// workspace's entity types (its setting, read at each passage), else ENTITY_TYPES.
func wireStore(cfg *config.Config, logger *slog.Logger, client *llm.Client, dim int, root, store graphrag.Store, ws string) *app {
	a := &app{cfg: cfg, logger: logger, llm: client, store: store, root: root, dim: dim}
	embed := spaceEmbedder(cfg, logger, client, store, dim)
	a.retriever = graphrag.NewRetriever(store, embed)
	llmExtractor := graphrag.NewLLMExtractor(client).WithEntityTypes(cfg.EntityTypeList())
	if reg, ok := root.(auth.Store); ok {
		llmExtractor.WithEntityTypeSource(auth.EntityTypeSource(reg, ws))
	}
	var extractor graphrag.ChunkExtractor = llmExtractor
	if cfg.ExtractTables == "rows" {
		extractor = graphrag.NewTableRowExtractor(extractor)
	}
	opt := graphrag.IngestOptions{Workers: cfg.IngestWorkers, MaxBytes: cfg.MaxUploadBytes, Lease: cfg.Lease}
	if cfg.EntityResolution {
		opt.Resolver = resolve.New(store, embed, logger) // names compared with passages in the store's space
	}
	a.ingester = graphrag.NewIngester(store, embed, extractor, opt, logger)
	// A re-index extracts the graph again as the ingester extracts it, then recomputes the communities.
	a.graph = graphrag.GraphReindex{Extractor: extractor, Resolver: opt.Resolver, Embed: embed, Model: cfg.LLMModel,
		Committed: func(ctx context.Context) {
			if _, err := graphrag.NewCommunities(store, nil, logger).Refresh(ctx); err != nil {
				logger.Warn("communities not recomputed after the graph was extracted again", "err", err)
			}
		}}
	a.reindexer = graphrag.NewReindexer(store, client, graphrag.EmbeddingSpace{Model: cfg.EmbedModel, Dim: dim}, logger).WithGraph(a.graph)
	return a
}

// embedDim is the configured embedding dimension, or the one the embedding model answers with.
func embedDim(ctx context.Context, cfg *config.Config, client *llm.Client) (int, error) {
	if cfg.EmbedDim > 0 {
		return cfg.EmbedDim, nil
	}
	probeCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	vecs, err := client.Embed(probeCtx, []string{"dimension probe"})
	if err != nil {
		return 0, fmt.Errorf("cannot reach the embedding model %q at %s to learn its dimension: %w\n"+
			"start the local models with `make run`, point EMBED_BASE_URL/LLM_BASE_URL at a running server, or set EMBED_DIM",
			cfg.EmbedModel, cmp.Or(cfg.EmbedBaseURL, cfg.LLMBaseURL), err)
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return 0, errors.New("the embedding model answered with no vector")
	}
	return len(vecs[0]), nil
}

func openStore(ctx context.Context, cfg *config.Config, dim int, logger *slog.Logger) (graphrag.Store, error) {
	if cfg.Neo4jURI != "" {
		return neo4j.Open(ctx, cfg.Neo4jURI, cfg.Neo4jUser, cfg.Neo4jPassword,
			neo4j.Options{EmbedDim: dim, EmbedModel: cfg.EmbedModel, Database: cfg.Neo4jDatabase}, logger)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, "hopwise.db")
	st, err := sqlite.Open(ctx, path, sqlite.Options{EmbedDim: dim, EmbedModel: cfg.EmbedModel, Force: cfg.StoreForce,
		ReserveBytes: sqlite.DefaultReserveBytes}, logger)
	if errors.Is(err, sqlite.ErrEmptyFile) || errors.Is(err, sqlite.ErrNoSchema) || errors.Is(err, sqlite.ErrDamaged) {
		return nil, fmt.Errorf("%w\nHopwise did not start, so nothing in the file was changed. Restore the file from a backup, "+
			"or move it away to start an empty store; to open it as it is, set HOPWISE_STORE_FORCE=true (the Status page then says what is wrong)", err)
	}
	return st, err
}

// Close releases what openApp opened.
func (a *app) Close() error {
	if a.root != nil {
		return a.root.Close()
	}
	if a.store == nil {
		return nil
	}
	return a.store.Close()
}

func (a *app) status(ctx context.Context) handlers.Status {
	st := handlers.Status{Settings: map[string]string{}}
	for _, e := range a.cfg.Effective() {
		st.Settings[e.Env] = e.Value
	}
	check := func(name, configured string, err error) {
		c := handlers.Check{Name: name, Configured: configured, OK: err == nil}
		if err != nil {
			c.Detail = err.Error()
		}
		st.Checks = append(st.Checks, c)
	}
	modelWhere := a.cfg.LLMModel + " at " + a.cfg.LLMBaseURL
	if a.cfg.LLMBaseURL == config.Local {
		modelWhere += " (local models)"
	}
	check("model", modelWhere, a.llm.Ping(ctx))
	check("embeddings", a.cfg.EmbedModel+" at "+cmp.Or(a.cfg.EmbedBaseURL, a.cfg.LLMBaseURL), a.llm.PingEmbed(ctx))
	where := a.cfg.Neo4jURI
	if where == "" {
		where = filepath.Join(a.cfg.DataDir, "hopwise.db")
	}
	if a.store == nil {
		check("store", a.cfg.Store()+" at "+where+" (empty: nothing ingested yet)", nil)
	} else {
		check("store", a.store.Kind()+" at "+where, a.store.Ping(ctx))
	}
	if lite, ok := a.store.(*sqlite.Store); ok {
		for _, c := range lite.Checks(ctx) {
			st.Checks = append(st.Checks, handlers.Check{Name: c.Name, Configured: where, OK: c.OK, Detail: c.Detail})
		}
	}
	web := a.cfg.WebSearch
	if web != "off" {
		web += " at " + a.cfg.WebSearchURL
	}
	check("web search", web, nil)
	check("OCR for scanned PDFs", ocrStatus(), nil)
	if a.store != nil && a.reindexer != nil {
		configured, err := a.searchIndexStatus(ctx)
		check("search index", configured, err)
	}
	return st
}

// ocrStatus says whether scanned PDFs are read, and how to enable it when they are not.
func ocrStatus() string {
	tools, err := parse.OCR()
	if err != nil {
		return "off: " + err.Error()
	}
	return tools.Version + " with pdftoppm"
}
