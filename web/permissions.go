package web

import "context"

// Permissions are what the person viewing a page may change, so that a page offers only the controls they
// can use. The server refuses the others whatever a page shows (handlers/access_rules.go); this spares a
// reader forms that only answer 403.
type Permissions struct {
	// Edit: upload, replace, retry and delete documents, rename and delete conversations, edit the graph
	// and start topic summaries (editors and admins).
	Edit bool
	// Admin: also re-index and manage accounts.
	Admin bool
}

type permissionsKey struct{}

// WithPermissions is ctx carrying the permissions of whom a response is rendered for; the handlers set it
// for every request from someone known, and every component rendered with that ctx reads it.
func WithPermissions(ctx context.Context, p Permissions) context.Context {
	return context.WithValue(ctx, permissionsKey{}, p)
}

// PermissionsOf is what ctx says the viewer may change: nothing when it says nothing.
func PermissionsOf(ctx context.Context) Permissions {
	p, _ := ctx.Value(permissionsKey{}).(Permissions)
	return p
}

func canEdit(ctx context.Context) bool { return PermissionsOf(ctx).Edit }
