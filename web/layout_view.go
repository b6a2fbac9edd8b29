// Package web holds Hopwise's pages and fragments as templ components. Each page takes its own view model:
// plain values prepared by the handlers, never store records or agent state.
package web

// Nav names the page a layout marks as current in the navigation.
type Nav string

// The pages of the navigation.
const (
	NavChat      Nav = "chat"
	NavDocuments Nav = "documents"
	NavGraph     Nav = "graph"
	NavStatus    Nav = "status"
	NavSettings  Nav = "settings"
	NavAdmin     Nav = "admin"
)

// Meta is what every page's layout needs.
type Meta struct {
	Title string // page title, before " · Hopwise"
	Nav   Nav
	CSRF  string // token htmx sends in X-CSRF-Token and forms in _csrf
	// Scripts are extra script paths of this page, served from /static.
	Scripts []string
	// User is the signed-in account's name (empty: nobody signed in, or a laptop install without
	// accounts); Admin shows the admin page in the navigation.
	User  string
	Admin bool
	// Workspace is the workspace the page shows; Workspaces those the viewer may switch to (the header
	// offers the switch when there are two or more).
	Workspace  string
	Workspaces []WorkspaceOption
}

// WorkspaceOption is a workspace the page header's switch offers.
type WorkspaceOption struct{ ID, Name string }

// workspaceName is the name of the workspace with this ID among options, or the ID.
func workspaceName(options []WorkspaceOption, id string) string {
	for _, o := range options {
		if o.ID == id {
			return o.Name
		}
	}
	return id
}

// csrfHeaders is the hx-headers value that makes htmx send the CSRF token with every request.
func csrfHeaders(token string) map[string]string { return map[string]string{"X-CSRF-Token": token} }

// htmxConfig keeps htmx within the Content-Security-Policy (no eval, no inline indicator styles, no script
// tags executed from swapped content) and swaps error answers too: the server retargets them to the alert
// region, so a refusal (403, 413, 429) is shown rather than silently dropped.
const htmxConfig = `{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true,` +
	`"responseHandling":[{"code":"204","swap":false},{"code":"[23]..","swap":true},{"code":"[45]..","swap":true,"error":true}]}`

// ConfirmPage asks before something is deleted when the request came without JavaScript.
type ConfirmPage struct {
	Meta                  Meta
	Heading, Text         string
	Action, Confirm, Back string
}

// Pager leads from one page of a long list to its neighbours; empty when the list fits one page.
type Pager struct {
	Label      string // "Documents 51–100 of 7,305"
	Prev, Next string // addresses of the newer and older pages, empty at either end
}
