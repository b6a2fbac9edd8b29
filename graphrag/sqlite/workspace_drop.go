package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

var _ graphrag.WorkspaceDropper = (*Store)(nil)

// DropWorkspace deletes workspace id: its file is closed if open, then the file and everything beside it
// that belongs to it (its journal, vector index and clean-close mark: the names that start with the file's)
// are removed. Everything of a workspace lives in its file, so nothing else is touched. A Store of it
// handed out before fails from then on; a later Workspace(id) starts an empty file.
func (s *Store) DropWorkspace(ctx context.Context, id string) error {
	if err := graphrag.CheckDroppable(id); err != nil {
		return fmt.Errorf("sqlite: drop workspace: %w", err)
	}
	if s.ws.isWorkspace(s) {
		return s.ws.root.DropWorkspace(ctx, id)
	}
	w := s.ws
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	if st := w.open[id]; st != nil {
		delete(w.open, id)
		errs = append(errs, st.closeFile())
	}
	path := WorkspacePath(s.path, id)
	entries, err := os.ReadDir(filepath.Dir(path))
	if errors.Is(err, os.ErrNotExist) {
		return errors.Join(errs...)
	}
	if err != nil {
		return fmt.Errorf("sqlite: drop workspace %s: %w", id, err)
	}
	base := filepath.Base(path)
	for _, e := range entries {
		name := e.Name()
		if name == base || strings.HasPrefix(name, base+"-") || strings.HasPrefix(name, base+".") {
			if err := os.Remove(filepath.Join(filepath.Dir(path), name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlite: drop workspace %s: %w", id, err)
	}
	s.logger.Info("sqlite workspace dropped", "workspace", id, "path", path)
	return nil
}
