package graphrag

import (
	"context"
	"errors"
	"fmt"
	"regexp"
)

// DefaultWorkspace is the workspace of a laptop install and of everything a store held before it had
// workspaces: a store's own handle is its default workspace, so an existing store is its default workspace
// without moving anything.
const DefaultWorkspace = "default"

// ErrWorkspace wraps a workspace ID that is not one (CheckWorkspaceID).
var ErrWorkspace = errors.New("invalid workspace ID")

var workspaceID = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// CheckWorkspaceID accepts a workspace ID: a lower-case letter, then up to 31 lower-case letters, digits
// and underscores. Stores name tables, files, labels and indexes after it, so it is never free text.
func CheckWorkspaceID(id string) error {
	if !workspaceID.MatchString(id) {
		return fmt.Errorf("%w: %q: use a lower-case letter, then lower-case letters, digits or '_' (at most 32)", ErrWorkspace, id)
	}
	return nil
}

type workspaceKey struct{}

// WithWorkspace returns ctx carrying the workspace a request acts in, from the request (session, token,
// header) to whatever picks its store.
func WithWorkspace(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, workspaceKey{}, id)
}

// WorkspaceOf is the workspace ctx carries, or "" when none was chosen.
func WorkspaceOf(ctx context.Context) string {
	id, _ := ctx.Value(workspaceKey{}).(string)
	return id
}

// WorkspaceDropper is a store whose workspaces can be removed: DropWorkspace deletes everything of workspace
// id (documents, passages, the graph, communities, edits, conversations, runs and jobs) and nothing of
// another; the default workspace is refused (ErrWorkspace). Whatever runs on that workspace's Store must
// have stopped first. A workspace holding nothing, or gone, is no error. The records of package auth
// (its name, members and tokens) are auth.Store.DeleteWorkspace's.
type WorkspaceDropper interface {
	DropWorkspace(ctx context.Context, id string) error
}

// CheckDroppable is what DropWorkspace refuses before it removes anything: the default workspace, and IDs
// that are not workspace IDs.
func CheckDroppable(id string) error {
	if id == DefaultWorkspace {
		return fmt.Errorf("%w: the default workspace is the store itself and is never dropped", ErrWorkspace)
	}
	return CheckWorkspaceID(id)
}
