// Package sqlite is the embedded knowledge store: one SQLite file (WAL) holding documents, chunks with
// FTS5 full text and float32 vectors, the entity graph and conversations, behind graphrag.Store.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopwise/hopwise/graphrag"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options fix what the file is built for: every vector stored and queried has EmbedDim values from the
// model EmbedModel, and a file built for one model and dimension refuses another.
type Options struct {
	// EmbedDim 0 opens an existing file with the dimension it recorded, without asking the model (for
	// commands that only read and delete); a file that does not exist yet is not created then, and Open
	// fails with graphrag.ErrNoDimension.
	EmbedDim   int
	EmbedModel string
	// Force opens an existing file that is empty, holds another program's tables or fails
	// PRAGMA quick_check; Checks then reports it. Without it Open refuses such a file (ErrEmptyFile,
	// ErrNoSchema, ErrDamaged).
	Force bool
	// ReserveBytes is the size of the reserve file kept beside the store and released when a delete
	// meets a full disk (0: none; `hopwise serve` keeps DefaultReserveBytes).
	ReserveBytes int64
	// MinFreeBytes is the room below which Checks reports the disk space failing (default
	// DefaultMinFreeBytes).
	MinFreeBytes int64
}

// Store is the embedded graphrag.Store. Writes go through one connection (SQLite allows one writer) and
// reads through a pool; vector search runs over an in-memory copy of the normalised vectors, so use one
// Store per file in a process: the copy sees only writes made through its own Store.
type Store struct {
	path string
	// space is the embedding model and dimension of the searched vectors; a committed re-embedding
	// replaces it (reindex.go).
	space   atomic.Pointer[graphrag.EmbeddingSpace]
	writer  *sql.DB
	reader  *sql.DB
	vectors *vectorIndex
	// vecMu orders each vector-changing transaction with its update of vectors, so a delete and an
	// embedding of the same chunk leave the copy as the file is.
	vecMu sync.Mutex
	// swapMu lets ReplaceDocument commit and swap the in-memory vectors while no vector search runs
	// (searches hold it shared), so a search never scans one version and reads the chunks of the other.
	swapMu sync.RWMutex
	// spaceMu keeps the embedding space still while a write plans with its dimension or a read decodes
	// relation vectors (shared), and while CommitReembed changes it (exclusive).
	spaceMu sync.RWMutex
	// previous is the vector index a committed re-embedding replaced, searched by queries of its
	// dimension for PreviousVectorsFor (under swapMu).
	previous *vectorIndex
	// vectorMaps release the index file's codes and blocks that vectors (and previous) were loaded with,
	// mapped into memory (vector_index_map_unix.go). Close calls them (releaseVectors).
	vectorMaps []func()
	// prepared are the statements compiled on the writer (stmt_cache.go); batch queues the writes that
	// share a transaction (write_batch.go).
	prepared *preparedStmts
	batch    writeBatcher
	// termDocs caches how many chunks hold each searched word (text_search.go); readStmts are the search
	// statements compiled on the reader pool (reader_stmts.go).
	termDocs  termCounts
	readStmts readerStmts
	// gen counts deletes and replaces for readers that must see one version (generation.go).
	gen    graphrag.GenerationGate
	logger *slog.Logger

	state   openState
	reserve int64
	minFree int64
	fullAt  atomic.Pointer[time.Time] // when the last write failed for lack of space; nil after a write succeeds

	// integrity is what is known of the file's soundness, checkLater that Open skipped the check of a
	// file last checked long ago, and opened that Open succeeded (store_clean.go).
	integrity  integrity
	checkLater bool
	opened     bool

	// opt is what the store was opened with, which its workspaces' files open with too (workspace.go).
	opt Options
	// ws holds the workspaces' files of a store's own file; a workspace's Store points back at it (root).
	ws *workspaceFiles
}

var _ graphrag.Store = (*Store)(nil)

// busyTimeoutMS is how long a connection waits for the write lock before SQLite reports it busy.
const busyTimeoutMS = 5000

// Open opens or creates the store file at path, migrates its schema and loads its vectors into memory.
// It fails with an error wrapping graphrag.ErrDimension when the file was built for another embedding
// model or dimension.
func Open(ctx context.Context, path string, opt Options, logger *slog.Logger) (*Store, error) {
	if opt.EmbedDim < 0 {
		return nil, fmt.Errorf("sqlite: open %s: embedding dimension must be positive, got %d", path, opt.EmbedDim)
	}
	if path == "" || strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("sqlite: open %q: path must be non-empty and contain no '?'", path)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	start := time.Now()
	existed, forced, err := inspectFile(path, opt.Force)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if opt.EmbedDim == 0 {
		if opt.EmbedDim, err = recordedDim(ctx, path, existed); err != nil {
			return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
		}
	}
	writer, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxIdleTime(0)
	reader, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	readers := max(4, runtime.NumCPU())
	reader.SetMaxOpenConns(readers)
	reader.SetMaxIdleConns(readers)
	s := &Store{path: path, writer: writer, reader: reader, vectors: newVectorIndex(opt.EmbedDim), logger: logger,
		state:   openState{existed: existed, forced: forced},
		reserve: opt.ReserveBytes, minFree: cmp.Or(opt.MinFreeBytes, DefaultMinFreeBytes), opt: opt}
	s.space.Store(&graphrag.EmbeddingSpace{Model: opt.EmbedModel, Dim: opt.EmbedDim})
	s.prepared = newPreparedStmts(writer)
	s.ws = newWorkspaceFiles(s)
	if err := s.prepare(ctx, opt); err != nil {
		s.Close()
		return nil, err
	}
	if !existed {
		s.integrity.foundSound()
	}
	s.readStmts.prepare(ctx, reader)
	s.opened = true
	if s.checkLater {
		s.checkInBackground()
	}
	logger.Info("sqlite store opened", "path", path, "dim", opt.EmbedDim, "model", opt.EmbedModel,
		"vectors", s.vectors.len(), "took", time.Since(start).Round(time.Millisecond))
	return s, nil
}

// prepare checks an existing file, migrates the schema, checks the embedding settings, loads the vectors
// and keeps the space reserve.
func (s *Store) prepare(ctx context.Context, opt Options) error {
	if s.state.existed {
		if err := s.checkExisting(ctx, opt.Force); err != nil {
			return fmt.Errorf("sqlite: open %s: %w", s.path, err)
		}
	}
	if free, ok := diskFree(filepath.Dir(s.path)); ok && free < s.minFree {
		s.logger.Warn("sqlite: little free disk space", "path", s.path, "free", bytesText(free))
	}
	defer s.keepReserve()
	if err := s.migrate(ctx); err != nil {
		return fmt.Errorf("sqlite: open %s: migrate: %w", s.path, err)
	}
	if err := s.checkEmbedding(ctx, opt); err != nil {
		return fmt.Errorf("sqlite: open %s: %w", s.path, err)
	}
	if err := s.loadVectors(ctx); err != nil {
		return fmt.Errorf("sqlite: open %s: load vectors: %w", s.path, err)
	}
	return nil
}

// dsn is the connection string: WAL, a busy timeout, foreign keys, synchronous NORMAL (durable in WAL up
// to the last checkpointed commit on power loss, never corrupt); writers take the lock at BEGIN so a
// transaction never fails half way upgrading from read to write; readers cannot write. Cache sizes are in
// KiB (negative): 64 MiB for the writer, 16 MiB per reader.
func dsn(path string, readOnly bool) string {
	params := []string{
		fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeoutMS),
		"_pragma=foreign_keys(1)",
		"_pragma=synchronous(NORMAL)",
	}
	if readOnly {
		params = append(params, "_pragma=query_only(1)", "_pragma=cache_size(-16384)")
	} else {
		// A large page cache keeps a big ingest transaction from spilling to the WAL before it commits.
		params = append(params, "_pragma=journal_mode(WAL)", "_txlock=immediate", "_pragma=cache_size(-65536)")
	}
	return path + "?" + strings.Join(params, "&")
}

// Kind names the back end.
func (s *Store) Kind() string { return "sqlite" }

// Ping checks that the file answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.reader.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// Close closes both connection pools and those of the workspaces opened through it; the Store is unusable
// afterwards. A workspace's Store is closed with the store it came from: closing it does nothing.
func (s *Store) Close() error {
	if s.ws.isWorkspace(s) {
		return nil
	}
	return errors.Join(s.ws.closeAll(), s.closeFile())
}

func (s *Store) closeFile() error {
	var errs []error
	s.stopBackgroundCheck()
	if s.writer != nil && s.reader != nil {
		s.saveVectors(context.Background())
		s.prepared.close()
	}
	s.releaseVectors()
	if s.writer != nil {
		if _, err := s.writer.Exec("PRAGMA optimize"); err != nil {
			s.logger.Debug("sqlite optimize before close failed", "err", err)
		}
		errs = append(errs, s.writer.Close())
	}
	if s.reader != nil {
		errs = append(errs, s.readStmts.close(), s.reader.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: close: %w", err)
	}
	s.leaveCleanMark()
	return nil
}
