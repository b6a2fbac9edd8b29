package handlers

import "github.com/hopwise/hopwise/auth"

// accessRule is what a route requires: need is the lowest role allowed ("" for a public route, which
// anyone may reach; a bare one does not even look up who asks: static files, the health check), audit
// names the action written to the audit log when it succeeds, and confirmed marks form routes that act
// only once the person confirmed (confirmed=yes), so that showing the confirmation is not logged as the
// act.
type accessRule struct {
	need      auth.Role
	audit     string
	confirmed bool
	bare      bool
	// account marks the routes of the account rather than of a workspace (sign-in, settings, admin, the
	// workspace switch): they need the account's role; every other route the role in the request's
	// workspace.
	account bool
}

var (
	public = accessRule{}
	bare   = accessRule{bare: true}
	reader = accessRule{need: auth.Reader}
	editor = accessRule{need: auth.Editor}
	admin  = accessRule{need: auth.Admin}
)

func audited(r accessRule, action string) accessRule { r.audit = action; return r }

func ofAccount(r accessRule) accessRule { r.account = true; return r }

// routeRules holds the requirement of every route, by method and Echo path. A route missing here is
// refused (access answers 500 and logs it) and fails TestEveryRouteDeclaresItsAccess, so a new route
// cannot be left open by forgetting it. Readers ask and browse; editors also change documents and
// conversations; admins also manage accounts and read the audit log.
var routeRules = map[string]accessRule{
	"GET /healthz":  bare,
	"GET /static/*": bare,
	"GET /login":    public,
	"POST /login":   public,
	"GET /setup":    public,
	"POST /setup":   public,
	"POST /logout":  ofAccount(reader),

	"GET /settings":                    ofAccount(reader),
	"POST /settings/password":          ofAccount(reader),
	"POST /settings/tokens":            ofAccount(reader),
	"POST /settings/tokens/:id/revoke": ofAccount(reader),
	"POST /settings/sessions/end":      ofAccount(reader),
	"POST /workspace":                  ofAccount(reader),

	"GET /admin":                            ofAccount(admin),
	"POST /admin/users":                     ofAccount(admin),
	"POST /admin/users/:id/role":            ofAccount(admin),
	"POST /admin/users/:id/disabled":        ofAccount(admin),
	"POST /admin/users/:id/password":        ofAccount(admin),
	"POST /admin/tokens/:id/revoke":         ofAccount(admin),
	"POST /admin/workspaces":                ofAccount(admin), // auth.Service writes the audit log of these
	"POST /admin/workspaces/:id/membership": ofAccount(admin),
	"POST /admin/workspaces/:id/delete":     ofAccount(admin),
	"DELETE /api/v1/workspaces/:id":         ofAccount(admin),
	// the entity types of the workspace the request acts in, set by an admin of it (audited by auth.Service)
	"POST /settings/entity-types": admin,

	"GET /":                               reader,
	"POST /chat/ask":                      reader,
	"GET /chat/stream/:run":               reader,
	"POST /chat/stop/:run":                reader,
	"POST /chat/retry/:turn":              reader,
	"POST /chat/conversations/:id/rename": editor,
	"POST /chat/conversations/:id/delete": {need: auth.Editor, audit: "delete conversation", confirmed: true},
	"GET /passages/:id":                   reader,

	"GET /documents":              reader,
	"POST /documents":             audited(editor, "upload"),
	"POST /documents/url":         audited(editor, "upload"),
	"POST /documents/samples":     audited(editor, "upload"),
	"GET /documents/events":       reader,
	"GET /documents/:id":          reader,
	"GET /documents/:id/original": reader,
	"POST /documents/:id/delete":  {need: auth.Editor, audit: "delete", confirmed: true},
	"POST /documents/:id/retry":   audited(editor, "retry"),
	"POST /documents/:id/replace": audited(editor, "replace"),
	"GET /graph":                  reader,
	"GET /graph/entity":           reader,
	"GET /graph/relation":         reader,
	// the edits of the graph (graph_duplicates.go, graph_edit_api.go), each also an edit in the store
	"GET /graph/duplicates":               reader,
	"POST /graph/duplicates/:id/merge":    audited(editor, "edit graph"),
	"POST /graph/duplicates/:id/distinct": audited(editor, "edit graph"),
	"POST /graph/edits/:id/undo":          audited(editor, "edit graph"),
	"GET /graph/entities/edit":            reader,
	"POST /graph/entities/edit":           audited(editor, "edit graph"),
	"GET /api/v1/graph/duplicates":        reader,
	"GET /api/v1/graph/edits":             reader,
	"POST /api/v1/graph/edits":            audited(editor, "edit graph"),
	"POST /api/v1/graph/edits/:id/undo":   audited(editor, "edit graph"),

	"GET /graph/communities":            reader,
	"POST /graph/communities/summaries": audited(editor, "summarize communities"),
	"POST /graph/communities/stop":      editor,

	"GET /status":                 reader,
	"GET /status/reindex":         reader,
	"POST /status/reindex":        audited(admin, "reindex"),
	"GET /api/status":             reader,
	"GET /api/documents":          reader,
	"POST /api/documents":         audited(editor, "upload"),
	"POST /api/documents/url":     audited(editor, "upload"),
	"GET /api/documents/:id":      reader,
	"DELETE /api/documents/:id":   audited(editor, "delete"),
	"GET /api/graph/entities":     reader,
	"GET /api/graph/neighborhood": reader,
	"POST /api/ask":               reader,

	"GET /api/v1/openapi.json":           public,
	"GET /api/v1/status":                 reader,
	"GET /api/v1/documents":              reader,
	"POST /api/v1/documents":             audited(editor, "upload"),
	"POST /api/v1/documents/url":         audited(editor, "upload"),
	"GET /api/v1/documents/:id":          reader,
	"DELETE /api/v1/documents/:id":       audited(editor, "delete"),
	"POST /api/v1/documents/:id/retry":   audited(editor, "retry"),
	"GET /api/v1/documents/:id/original": reader,
	"GET /api/v1/passages/:id":           reader,
	"GET /api/v1/search":                 reader,
	"GET /api/v1/graph/entities":         reader,
	"GET /api/v1/graph/neighbourhood":    reader,
	"POST /api/v1/ask":                   reader,
	"GET /api/v1/conversations":          reader,
	"GET /api/v1/conversations/:id":      reader,
	"DELETE /api/v1/conversations/:id":   audited(editor, "delete conversation"),
	"GET /v1/models":                     reader,
	"POST /v1/chat/completions":          reader,
	"POST /mcp":                          reader,

	// a question's answer streamed from the store, from whichever process writes it
	"GET /api/v1/conversations/:id/turns/:turn/events": reader,
}
