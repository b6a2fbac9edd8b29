package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/graphrag"
)

// workspaceFiles are the files of a store's workspaces other than the default: one SQLite file each, in the
// directory <name>.workspaces beside the store's own file (hopwise.db: hopwise.workspaces/<id>.db), opened
// on first use and kept open with the store. A workspace's documents, chunks with their full text and
// vectors, graph, communities, edits and conversations live in its file alone, and each file has its own
// in-memory vector index, so no query of one workspace reads or changes another's and no search ranks
// another's passages: there is no workspace column a query could forget. The store's own file is the
// default workspace (what it held before workspaces) and keeps the accounts (auth.go).
type workspaceFiles struct {
	root   *Store
	mu     sync.Mutex
	open   map[string]*Store
	closed bool
}

func newWorkspaceFiles(root *Store) *workspaceFiles {
	return &workspaceFiles{root: root, open: map[string]*Store{}}
}

// isWorkspace reports whether s is a workspace's Store rather than the store the workspaces belong to.
func (w *workspaceFiles) isWorkspace(s *Store) bool { return w != nil && w.root != s }

// WorkspacePath is the file of workspace id of the store at path.
func WorkspacePath(path, id string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return filepath.Join(filepath.Dir(path), base+".workspaces", id+".db")
}

// Workspace returns the Store of workspace id, opening (or creating) its file on first use: the store itself
// for graphrag.DefaultWorkspace.
func (s *Store) Workspace(ctx context.Context, id string) (graphrag.Store, error) {
	return s.ws.workspace(ctx, id)
}

func (w *workspaceFiles) workspace(ctx context.Context, id string) (graphrag.Store, error) {
	if id == graphrag.DefaultWorkspace {
		return w.root, nil
	}
	if err := graphrag.CheckWorkspaceID(id); err != nil {
		return nil, fmt.Errorf("sqlite: workspace: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if st := w.open[id]; st != nil {
		return st, nil
	}
	if w.closed {
		return nil, fmt.Errorf("sqlite: workspace %s: the store is closed", id)
	}
	root := w.root
	path := WorkspacePath(root.path, id)
	opt := root.opt
	// The reserve is kept beside the store's own file only (one reserve per disk is enough to free room).
	opt.ReserveBytes = 0
	// New files take the dimension and model the store searches with now; a command that opened the store
	// for any model (EmbedModel "") opens an existing workspace file with the dimension it recorded.
	opt.EmbedDim = root.EmbeddingSpace().Dim
	_, statErr := os.Stat(path)
	if opt.EmbedModel == "" && statErr == nil {
		opt.EmbedDim = 0
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("sqlite: workspace %s: %w", id, err)
		}
	}
	st, err := Open(ctx, path, opt, root.logger.With("workspace", id))
	if err != nil {
		return nil, fmt.Errorf("sqlite: workspace %s: %w", id, err)
	}
	st.ws = w
	w.open[id] = st
	return st, nil
}

// closeAll closes every workspace file opened; later calls of Workspace fail.
func (w *workspaceFiles) closeAll() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	var errs []error
	for id, st := range w.open {
		errs = append(errs, st.closeFile())
		delete(w.open, id)
	}
	return errors.Join(errs...)
}
