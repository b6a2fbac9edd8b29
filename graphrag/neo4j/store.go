// Package neo4j is the Neo4j 5 implementation of graphrag.Store: documents, chunks, entities,
// conversations and turns as nodes, the entity graph as RELATED edges, a vector index on chunk embeddings
// and full-text indexes on chunk text and entity names. It holds all state of the app, so any number of
// hopwise processes can share one database.
package neo4j

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"
)

// Options configure a Store.
type Options struct {
	// EmbedDim is the dimension of the chunk vector index; every embedding put or queried must have it.
	// 0 opens a database with the dimension of its existing vector index, without asking the model (for
	// commands that only read and delete); a database without one is left as it is and Open fails with
	// graphrag.ErrNoDimension.
	EmbedDim int
	// EmbedModel names the embedding model the vectors come from; it is recorded in the Meta node.
	EmbedModel string
	// Database is the Neo4j database to use; empty means the server's default database.
	Database string
}

// Store is a graphrag.Store backed by Neo4j. It is safe for concurrent use.
type Store struct {
	driver neo4j.DriverWithContext
	uri    string
	opt    Options
	logger *slog.Logger

	// down is set when a call found the server unreachable; the next calls probe it first and fail fast
	// until it answers again.
	down atomic.Bool
	// probeAfter is how long a call may run before a probe checks the server still answers.
	probeAfter time.Duration

	// space is the embedding space searches use and the slot its vectors are in (reindex.go); slot and
	// recordedModel are what Open read of it from the Meta node.
	space         atomic.Pointer[space]
	slot          int
	recordedModel string
	previous      *space // the slot a re-embedding replaced, for PreviousVectorsFor (under searchMu)
	// spaceMu keeps the space still while vectors are written (shared) and while a re-embedding commits
	// (exclusive); searchMu keeps searches whole (shared): a vector search in one space, and every search
	// before or after a replace's commit (exclusive), never across it.
	spaceMu, searchMu sync.RWMutex
	// gen keeps Generation from reading across this process's deletes and replaces (generation.go).
	gen graphrag.GenerationGate

	// openOpt is what Open was given, which workspaces open with (workspace.go). workspace is the ID of a
	// workspace's Store ("" for the default), root the store it came from, which keeps the workspaces'
	// Stores; scopedQueries are a workspace's queries as rewritten for it.
	openOpt       Options
	workspace     string
	root          *Store
	wsMu          sync.Mutex
	workspaces    map[string]*Store
	scopedQueries sync.Map

	// settle touches the vector index after vector writes, so that searches use its merged segments
	// (vector_settle.go).
	settle vectorSettle
}

var _ graphrag.Store = (*Store)(nil)

// connectTimeout bounds Open's connectivity check and each probe of a call that takes long.
const connectTimeout = 5 * time.Second

// Open connects to the Neo4j server at uri (bolt://, neo4j:// or their +s variants), checks that it
// answers and creates the schema for opt.EmbedDim when missing. An empty user means no authentication.
// It fails with graphrag.ErrUnavailable when the server cannot be reached and graphrag.ErrDimension when
// the database was built with another embedding dimension or model.
func Open(ctx context.Context, uri, user, password string, opt Options, logger *slog.Logger) (*Store, error) {
	if opt.EmbedDim < 0 {
		return nil, fmt.Errorf("neo4j: open: embedding dimension must be positive, got %d", opt.EmbedDim)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	token := neo4j.NoAuth()
	if user != "" {
		token = neo4j.BasicAuth(user, password, "")
	}
	driver, err := neo4j.NewDriverWithContext(uri, token, func(c *config.Config) {
		c.SocketConnectTimeout = connectTimeout
		c.ConnectionAcquisitionTimeout = 30 * time.Second
		c.MaxTransactionRetryTime = 30 * time.Second
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: open %s: %w", uri, err)
	}
	s := &Store{driver: driver, uri: uri, opt: opt, openOpt: opt, logger: logger, probeAfter: time.Second}
	if err := s.verify(ctx); err != nil {
		_ = driver.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	if err := s.prepare(ctx); err != nil {
		_ = driver.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	s.scheduleSettle(false)
	logger.Info("neo4j store open", "uri", uri, "database", opt.Database, "dim", s.opt.EmbedDim, "model", opt.EmbedModel)
	return s, nil
}

// prepare reads the embedding space of the store's workspace and creates its schema when missing.
func (s *Store) prepare(ctx context.Context) error {
	if err := s.loadSlot(ctx); err != nil {
		return err
	}
	if err := s.useRecordedDim(ctx); err != nil {
		return err
	}
	if err := s.ensureSchema(ctx); err != nil {
		return err
	}
	if s.workspace == "" {
		if err := s.ensureDefaultWorkspace(ctx); err != nil {
			return err
		}
	}
	s.space.Store(&space{EmbeddingSpace: graphrag.EmbeddingSpace{Model: cmp.Or(s.opt.EmbedModel, s.recordedModel), Dim: s.opt.EmbedDim}, slot: s.slot})
	if err := s.dropInactiveSlot(ctx); err != nil {
		s.logger.Warn("neo4j: the vectors a re-embedding replaced are left in the database", "err", err)
	}
	return nil
}

// verify checks connectivity and credentials, saying what to check when either fails.
func (s *Store) verify(ctx context.Context) error {
	vctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	err := s.driver.VerifyConnectivity(vctx)
	if err == nil {
		return nil
	}
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) && isSecurityCode(dbErr.Code) {
		return fmt.Errorf("neo4j: %s refused the credentials (check NEO4J_USERNAME and NEO4J_PASSWORD): %w", s.uri, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("neo4j: open %s: %w", s.uri, ctx.Err())
	}
	return fmt.Errorf("neo4j: cannot reach %s: %v (check that Neo4j is running and that NEO4J_URI names its Bolt address): %w",
		s.uri, err, graphrag.ErrUnavailable)
}

// Kind names the back end.
func (s *Store) Kind() string { return "neo4j" }

// Ping checks that the server answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.probe(ctx); err != nil {
		return fmt.Errorf("neo4j: ping: %w", err)
	}
	return nil
}

// Close releases the driver's connections, after a touch of the vector index still due (vector_settle.go).
// A workspace's Store shares them with the store it came from and is closed with it: closing it does
// nothing.
func (s *Store) Close() error {
	if s.root != nil {
		return nil
	}
	s.wsMu.Lock()
	for _, w := range s.workspaces {
		w.closeSettle()
	}
	s.wsMu.Unlock()
	s.closeSettle()
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	if err := s.driver.Close(ctx); err != nil {
		return fmt.Errorf("neo4j: close: %w", err)
	}
	return nil
}
