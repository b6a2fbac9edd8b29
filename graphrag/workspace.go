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
