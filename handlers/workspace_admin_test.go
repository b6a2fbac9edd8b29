package handlers_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// hrApp is teamApp with workspaces served and an hr workspace whose member hrm (an editor) is in hr alone.
func hrApp(t *testing.T) (*webtest.App, *httptest.Server, auth.Principal) {
	t.Helper()
	app, srv := teamApp(t, webtest.Options{Workspaces: true, Limits: handlers.Limits{AskPerMinute: 1000, UploadPerMinute: 1000}})
	ctx := t.Context()
	admin, _, err := app.Auth.Login(ctx, "ana", testPassword, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Auth.CreateWorkspace(ctx, admin, "hr", "Human resources"); err != nil {
		t.Fatal(err)
	}
	hrm, err := app.Auth.CreateAccount(ctx, admin, "hrm", testPassword, auth.Editor)
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Auth.SetMembership(ctx, admin, hrm.ID, "hr", "", false); err != nil {
		t.Fatal(err)
	}
	if err := app.Auth.SetMembership(ctx, admin, hrm.ID, graphrag.DefaultWorkspace, "", true); err != nil {
		t.Fatal(err)
	}
	return app, srv, admin
}

// putDone stores a document read already (without passages) in st.
func putDone(t *testing.T, st graphrag.Store, name, content string) {
	t.Helper()
	hash := graphrag.ContentHash([]byte(content))
	now := time.Now().UTC()
	d := graphrag.Document{ID: graphrag.DocumentID(hash), Name: name, Format: "md", Hash: hash, Size: int64(len(content)),
		Status: graphrag.StatusDone, CreatedAt: now, UpdatedAt: now}
	if _, _, err := st.PutDocument(t.Context(), d, []byte(content)); err != nil {
		t.Fatal(err)
	}
}

// auditRow is a row of the admin page's audit log.
type auditRow struct{ action, workspace, target string }

func auditRows(t *testing.T, b *browser) []auditRow {
	t.Helper()
	resp, page := b.get("/admin")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /admin = %d", resp.StatusCode)
	}
	var out []auditRow
	page.Find("#audit tbody tr").Each(func(_ int, tr *goquery.Selection) {
		out = append(out, auditRow{tr.AttrOr("data-action", ""), strings.TrimSpace(tr.Find("td.audit-workspace").Text()),
			strings.TrimSpace(tr.Find("td").Eq(4).Text())})
	})
	return out
}

// The admin page's audit log names the workspace of each upload and deletion, and of the workspace's own
// changes; a sign-in concerns no workspace.
func TestAuditNamesTheWorkspace(t *testing.T) {
	app, srv, _ := hrApp(t)
	hrb := signIn(t, app, srv, "hrm")
	if resp, _ := hrb.upload([]file{{name: "bands.md", body: []byte("# Bands\n\nThe Qorvexa band is set yearly.\n")}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to hr: %d", resp.StatusCode)
	}
	ed := signIn(t, app, srv, "ed")
	if resp, _ := ed.upload([]file{{name: "handbook.md", body: []byte(publicText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to default: %d", resp.StatusCode)
	}
	hrDocs := waitDocuments(t, app.Workspace(t, "hr"), 1)
	if status, _ := hrb.try(10*time.Second, http.MethodDelete, "/api/v1/documents/"+hrDocs[0].ID, "", nil); status != http.StatusNoContent {
		t.Fatalf("hrm deletes its document: %d", status)
	}
	admin := signIn(t, app, srv, "ana")
	rows := auditRows(t, admin)
	want := map[auditRow]bool{
		{"upload", "hr", "bands.md"}: false, {"upload", graphrag.DefaultWorkspace, "handbook.md"}: false,
		{"delete", "hr", hrDocs[0].ID}: false, {"workspace created", "hr", "hr"}: false, {"membership set", "hr", "hrm"}: false,
	}
	for _, r := range rows {
		if _, ok := want[r]; ok {
			want[r] = true
		}
		if r.action == "sign-in" && r.workspace != "" {
			t.Errorf("a sign-in is shown in workspace %q, want none", r.workspace)
		}
	}
	for r, seen := range want {
		if !seen {
			t.Errorf("the audit log has no %q in %q on %q; it shows %+v", r.action, r.workspace, r.target, rows)
		}
	}
}

// The OpenAPI document declares the header that picks the workspace on every operation of a workspace
// (not on the account's), and the router reads that header: with it a token's call reads the workspace it
// names, a workspace the caller is no member of is 403, and without it the default workspace answers.
func TestOpenAPIDeclaresTheWorkspaceHeader(t *testing.T) {
	app, srv, _ := hrApp(t)
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name, In string
				Required bool
			}
		}
	}
	b := signIn(t, app, srv, "ana")
	if code := getJSON(t, b, "/api/v1/openapi.json", &doc); code != http.StatusOK {
		t.Fatalf("openapi.json: %d", code)
	}
	header := ""
	for path, ops := range doc.Paths {
		for method, op := range ops {
			var names []string
			for _, p := range op.Parameters {
				if p.In == "header" {
					names = append(names, p.Name)
					if p.Required {
						t.Errorf("%s %s requires the header %s", method, path, p.Name)
					}
				}
			}
			key := strings.ToUpper(method) + " " + strings.NewReplacer("{", ":", "}", "").Replace(path)
			if handlers.RouteOfAccount(key) || key == "GET /api/v1/openapi.json" {
				if len(names) != 0 {
					t.Errorf("%s, an operation of the account, declares the headers %v", key, names)
				}
				continue
			}
			if len(names) != 1 {
				t.Errorf("%s declares the headers %v, want the workspace's", key, names)
				continue
			}
			if header != "" && names[0] != header {
				t.Errorf("%s names the workspace header %s, others %s", key, names[0], header)
			}
			header = names[0]
		}
	}
	if header == "" {
		t.Fatal("no operation declares a workspace header")
	}
	putDone(t, app.Workspace(t, "hr"), "bands.md", "# Bands\n")
	token := b.createToken("openapi check", "reader")
	list := func(workspace string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/documents", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		if workspace != "" {
			req.Header.Set(header, workspace)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			body.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, body.String()
	}
	if code, body := list("hr"); code != http.StatusOK || !strings.Contains(body, "bands.md") {
		t.Errorf("documents with %s: hr = %d %s; want hr's bands.md", header, code, body)
	}
	if code, body := list(""); code != http.StatusOK || strings.Contains(body, "bands.md") {
		t.Errorf("documents without %s = %d %s; want the default workspace's, without hr's", header, code, body)
	}
	hrm := signIn(t, app, srv, "hrm")
	token = hrm.createToken("hr only", "reader")
	if code, _ := list(graphrag.DefaultWorkspace); code != http.StatusForbidden {
		t.Errorf("hrm's documents with %s: default = %d, want 403", header, code)
	}
}

// An admin deletes a workspace from the admin page once its ID is typed again: everything of it goes
// (documents, passages, graph, conversations; memberships; tokens limited to it), another workspace keeps
// all of its own, the default workspace is refused, an editor cannot, and the audit log says so. The API's
// DELETE /api/v1/workspaces/:id does the same.
func TestAdminDeletesAWorkspace(t *testing.T) {
	app, srv, admin := hrApp(t)
	ctx := t.Context()
	hrb := signIn(t, app, srv, "hrm")
	if resp, _ := hrb.upload([]file{{name: secretName, body: []byte(secretText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to hr: %d", resp.StatusCode)
	}
	ed := signIn(t, app, srv, "ed")
	if resp, _ := ed.upload([]file{{name: "handbook.md", body: []byte(publicText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to default: %d", resp.StatusCode)
	}
	hr := app.Workspace(t, "hr")
	waitDocuments(t, hr, 1)
	waitDocuments(t, app.Store, 1)
	if status, _ := hrb.try(time.Minute, http.MethodPost, "/api/v1/ask", `{"question":"What is the Qorvexa band for engineers?"}`, nil); status != http.StatusOK {
		t.Fatalf("hrm asks in hr: %d", status)
	}
	hrToken := hrb.createTokenIn("hr script", "reader", "hr")
	before, err := hr.Stats(ctx)
	if err != nil || before.Documents != 1 || before.Chunks == 0 || before.Entities == 0 {
		t.Fatalf("hr before: %+v, %v; want a document, its passages and entities", before, err)
	}
	defBefore, err := app.Store.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	ana := signIn(t, app, srv, "ana")
	// The page offers the deletion of hr, not of the default workspace.
	_, page := ana.get("/admin")
	if page.Find(`form.workspace-delete[action="/admin/workspaces/hr/delete"]`).Length() != 1 ||
		page.Find(`form[action="/admin/workspaces/default/delete"]`).Length() != 0 {
		t.Error("the admin page does not offer to delete hr alone")
	}
	if resp, _ := ed.post("/admin/workspaces/hr/delete", url.Values{"confirm": {"hr"}}, false); resp.StatusCode != http.StatusForbidden {
		t.Errorf("an editor deletes hr: %d, want 403", resp.StatusCode)
	}
	if resp, page := ana.post("/admin/workspaces/hr/delete", url.Values{"confirm": {"yes"}}, false); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(page.Find(".notice.bad").Text(), "workspace's ID, hr, to confirm") {
		t.Errorf("delete hr confirmed with yes: %d %q, want 400 asking for the ID", resp.StatusCode, page.Find(".notice.bad").Text())
	}
	if resp, _ := ana.post("/admin/workspaces/default/delete", url.Values{"confirm": {"default"}}, false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("delete default: %d, want 400", resp.StatusCode)
	}
	if st, err := hr.Stats(ctx); err != nil || st != before {
		t.Fatalf("hr after refused deletions: %+v, %v; want %+v", st, err, before)
	}

	resp, _ := ana.post("/admin/workspaces/hr/delete", url.Values{"confirm": {"hr"}}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/admin?done=deleted" {
		t.Fatalf("delete hr: %d to %q, want 303 to /admin?done=deleted", resp.StatusCode, resp.Header.Get("Location"))
	}
	if _, err := app.Auth.Workspace(ctx, "hr"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("hr after its deletion: %v, want ErrNotFound", err)
	}
	ms, err := app.Auth.Memberships(ctx, admin, "")
	if err != nil || slices.ContainsFunc(ms, func(m auth.Membership) bool { return m.Workspace == "hr" }) {
		t.Errorf("memberships after deleting hr: %+v, %v; want none in hr", ms, err)
	}
	if _, err := app.Auth.TokenPrincipal(ctx, hrToken); !errors.Is(err, auth.ErrCredentials) {
		t.Errorf("hr's token after deleting hr: %v, want refused", err)
	}
	// A handle opened again finds nothing of hr; the default workspace has all it had.
	again := app.Workspace(t, "hr")
	if st, err := again.Stats(ctx); err != nil || st != (graphrag.Stats{}) {
		t.Errorf("hr's store after the deletion: %+v, %v; want empty", st, err)
	}
	if convs, err := again.Conversations(ctx, graphrag.AllConversations); err != nil || len(convs) != 0 {
		t.Errorf("hr's conversations after the deletion: %d, %v; want none", len(convs), err)
	}
	if st, err := app.Store.Stats(ctx); err != nil || st != defBefore {
		t.Errorf("default after hr's deletion: %+v, %v; want %+v", st, err, defBefore)
	}
	if status, got := hrb.try(5*time.Second, http.MethodGet, "/api/v1/documents", "", http.Header{"X-Hopwise-Workspace": {"hr"}}); status != http.StatusForbidden || strings.Contains(got, secretName) {
		t.Errorf("hrm lists hr after its deletion: %d, want 403 without its document", status)
	}
	found := false
	for _, r := range auditRows(t, ana) {
		found = found || r == auditRow{"workspace deleted", "hr", "hr"}
	}
	if !found {
		t.Error("the audit log does not show hr's deletion in hr")
	}

	// The API: a second workspace deleted by an admin's token, confirmed; refused unconfirmed and for default.
	if _, err := app.Auth.CreateWorkspace(ctx, admin, "ops", "Ops"); err != nil {
		t.Fatal(err)
	}
	putDone(t, app.Workspace(t, "ops"), "ops.md", "# Ops\n")
	token := ana.createToken("admin script", "admin")
	edToken := ed.createToken("editor script", "editor")
	for _, c := range []struct {
		token, path string
		want        int
	}{
		{edToken, "/api/v1/workspaces/ops?confirm=ops", http.StatusForbidden},
		{token, "/api/v1/workspaces/ops", http.StatusBadRequest},
		{token, "/api/v1/workspaces/default?confirm=default", http.StatusBadRequest},
		{token, "/api/v1/workspaces/nowhere?confirm=nowhere", http.StatusNotFound},
		{token, "/api/v1/workspaces/ops?confirm=ops", http.StatusNoContent},
	} {
		if got := callAPIIn(t, srv.URL, http.MethodDelete, c.path, c.token, ""); got != c.want {
			t.Errorf("DELETE %s = %d, want %d", c.path, got, c.want)
		}
	}
	if st, err := app.Workspace(t, "ops").Stats(ctx); err != nil || st.Documents != 0 {
		t.Errorf("ops after its deletion by the API: %+v, %v; want empty", st, err)
	}
}

// The entity types of a workspace: its admin sets them on the settings page (an editor sees no form and
// is refused), and the extraction prompts of that workspace's documents carry them while the default
// workspace's carry the server's.
func TestEntityTypesPerWorkspace(t *testing.T) {
	app, srv, admin := hrApp(t)
	ctx := t.Context()
	hrm, err := app.Store.AccountNamed(ctx, "hrm")
	if err != nil {
		t.Fatal(err)
	}
	hrb := signIn(t, app, srv, "hrm")
	if _, page := hrb.get("/settings"); page.Find("#entity-types").Length() != 0 {
		t.Error("an editor of hr is offered hr's entity types")
	}
	if resp, _ := hrb.post("/settings/entity-types", url.Values{"types": {"person"}}, false); resp.StatusCode != http.StatusForbidden {
		t.Errorf("an editor sets hr's entity types: %d, want 403", resp.StatusCode)
	}
	if err := app.Auth.SetMembership(ctx, admin, hrm.ID, "hr", auth.Admin, false); err != nil {
		t.Fatal(err)
	}
	_, page := hrb.get("/settings")
	if page.Find("#entity-types").Length() != 1 || !strings.Contains(page.Find("#entity-types-title").Text(), "Human resources") {
		t.Fatal("hr's admin is not offered hr's entity types")
	}
	if resp, page := hrb.post("/settings/entity-types", url.Values{"types": {"person, " + strings.Repeat("x", 30)}}, false); resp.StatusCode != http.StatusBadRequest ||
		!strings.Contains(page.Find(".notice.bad").Text(), "longer than 24") {
		t.Errorf("a type too long: %d %q, want 400 saying so", resp.StatusCode, page.Find(".notice.bad").Text())
	}
	resp, _ := hrb.post("/settings/entity-types", url.Values{"types": {"Salary Band, person, grade"}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("set hr's entity types: %d, want 303", resp.StatusCode)
	}
	if _, page := hrb.get("/settings"); page.Find("#entity-types-list").AttrOr("value", "") != "salary_band, person, grade" {
		t.Errorf("hr's entity types on the page = %q", page.Find("#entity-types-list").AttrOr("value", ""))
	}

	if resp, _ := hrb.upload([]file{{name: "bands.md", body: []byte("# Bands\n\nThe Qorvexa band for engineers is set by Mira Holt.\n")}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to hr: %d", resp.StatusCode)
	}
	ed := signIn(t, app, srv, "ed")
	if resp, _ := ed.upload([]file{{name: "handbook.md", body: []byte("# Handbook\n\nLumen Corp publishes the Zentrix handbook.\n")}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to default: %d", resp.StatusCode)
	}
	waitDocuments(t, app.Workspace(t, "hr"), 1)
	waitDocuments(t, app.Store, 1)
	prompts := map[string]string{}
	for _, r := range app.Model.Requests() {
		user := r.LastUser()
		if !strings.Contains(user, "entity types: ") {
			continue
		}
		for _, word := range []string{"Qorvexa", "Zentrix"} {
			if strings.Contains(user, word) {
				prompts[word] = user
			}
		}
	}
	if p := prompts["Qorvexa"]; !strings.Contains(p, "one of these entity types: salary_band, person, grade;") {
		t.Errorf("hr's extraction prompt does not carry hr's types:\n%s", p)
	}
	if p := prompts["Zentrix"]; !strings.Contains(p, "one of these entity types: "+strings.Join(graphrag.DefaultEntityTypes, ", ")+";") {
		t.Errorf("default's extraction prompt does not carry the server's types:\n%s", p)
	}
	found := false
	for _, r := range auditRows(t, signIn(t, app, srv, "ana")) {
		found = found || (r.action == "entity types set" && r.workspace == "hr")
	}
	if !found {
		t.Error("the audit log does not show hr's entity types being set")
	}
}
