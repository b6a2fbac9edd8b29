package handlers_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/labstack/echo/v4"
)

// The secret document of the hr workspace: its name and its figure appear in no request, so a response
// holding either read it.
const (
	secretName   = "hr-secret.md"
	secretFigure = "91,337"
	secretText   = "# Qorvexa salary bands\n\nThe Qorvexa band for engineers is " + secretFigure + " EUR a year. Qorvexa Holdings pays the HR staff monthly.\n"
	publicText   = "# Salary handbook\n\nSalary bands are published every year by Lumen Corp for its engineers.\n"
)

// try makes a request as b and returns the status and the body (what arrived within wait: the event streams
// never end), never failing the test on a timeout.
func (b *browser) try(wait time.Duration, method, path, body string, header http.Header) (int, string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.t.Context(), wait)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, b.srv.URL+path, strings.NewReader(body))
	req.Header.Set("X-CSRF-Token", b.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream, text/html")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	return resp.StatusCode, string(got)
}

// fill puts id in every parameter of an Echo path.
func fill(path, id string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || p == "*" {
			parts[i] = url.PathEscape(id)
		}
	}
	return strings.Join(parts, "/")
}

// isAsk reports the routes that ask the model: walked once each.
func isAsk(key string) bool {
	return strings.HasSuffix(key, "/ask") || strings.HasSuffix(key, "/chat/completions") || key == "POST /mcp"
}

func waitDocuments(t *testing.T, st graphrag.Store, n int) []graphrag.Document {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		docs, err := st.Documents(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, d := range docs {
			if d.Status.Finished() {
				done++
			}
		}
		if len(docs) >= n && done == len(docs) {
			return docs
		}
		if time.Now().After(deadline) {
			t.Fatalf("documents not done after 30s: %+v", docs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A member of the default workspace reaches nothing of the hr workspace: every route of the router is
// walked with every ID the hr workspace holds (its document, passages, entities, facts, conversation) in
// every parameter, its question words in every query, and with the hr workspace named in the header, and
// no answer holds the hr document's name or figure; nothing of hr is deleted or changed; the switch to hr
// is refused. An hr member, walked the same way, does read it (the walk reaches the data).
func TestWorkspacesKeepEverythingApart(t *testing.T) {
	app, srv, _ := hrApp(t)
	ctx := t.Context()

	hrb := signIn(t, app, srv, "hrm") // a member of hr alone: its pages are hr's
	if resp, _ := hrb.upload([]file{{name: secretName, body: []byte(secretText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to hr: %d", resp.StatusCode)
	}
	ed := signIn(t, app, srv, "ed") // a member of default alone
	if resp, _ := ed.upload([]file{{name: "handbook.md", body: []byte(publicText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to default: %d", resp.StatusCode)
	}
	hr := app.Workspace(t, "hr")
	hrDocs := waitDocuments(t, hr, 1)
	defDocs := waitDocuments(t, app.Store, 1)
	if len(hrDocs) != 1 || hrDocs[0].Name != secretName || len(defDocs) != 1 || defDocs[0].Name != "handbook.md" {
		t.Fatalf("hr holds %+v and default %+v; want one document each, where each was uploaded", hrDocs, defDocs)
	}
	if status, _ := hrb.try(time.Minute, http.MethodPost, "/api/v1/ask", `{"question":"What is the Qorvexa band for engineers?"}`, nil); status != http.StatusOK {
		t.Fatalf("hrm asks in hr: %d", status)
	}

	// Every ID hr holds.
	ids := []string{hrDocs[0].ID}
	chunks, err := hr.DocumentChunks(ctx, hrDocs[0].ID)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("hr's passages: %d, %v", len(chunks), err)
	}
	for _, c := range chunks {
		ids = append(ids, c.ID)
	}
	links, err := hr.GraphLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		ids = append(ids, l.ID, l.Source, l.Target)
	}
	convs, err := hr.Conversations(ctx, graphrag.AllConversations)
	if err != nil || len(convs) != 1 {
		t.Fatalf("hr's conversations: %d, %v; want the one asked", len(convs), err)
	}
	ids = slices.Compact(append(ids, convs[0].ID))
	before, err := hr.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	leaks := func(body string) bool {
		return strings.Contains(body, secretFigure) || strings.Contains(body, secretName)
	}
	query := func(id string) string {
		return "?" + url.Values{"q": {"Qorvexa salary band engineers"}, "key": {id}, "entity": {id}, "id": {id}, "c": {id},
			"source": {id}, "relation": {id}, "confirmed": {"yes"}, "hops": {"2"}}.Encode()
	}
	body := func(id string) string {
		return `{"question":"What is the Qorvexa band for engineers?","conversation_id":"` + id + `","model":"hopwise",` +
			`"messages":[{"role":"user","content":"What is the Qorvexa band for engineers?"}],` +
			`"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"Qorvexa band"}}}`
	}
	hrHeader := http.Header{"X-Hopwise-Workspace": {"hr"}}
	walked, refused, statuses := 0, 0, map[int]int{}
	for _, r := range routesOf(t, app) {
		key := r.Method + " " + r.Path
		need, _ := handlers.RouteNeed(key)
		if r.Method == echo.RouteNotFound || need == "" || handlers.RouteOfAccount(key) {
			continue
		}
		tries := ids
		if isAsk(key) || !strings.ContainsAny(r.Path, ":*") {
			tries = ids[:1]
		}
		for _, id := range tries {
			path := fill(r.Path, id) + query(id)
			wait := 2 * time.Second
			if isAsk(key) {
				wait = time.Minute
			}
			status, got := ed.try(wait, r.Method, path, body(id), nil)
			statuses[status]++
			if leaks(got) {
				t.Errorf("default's member %s %s = %d with hr's document in the answer", r.Method, path, status)
			}
			if status >= 500 {
				t.Errorf("default's member %s %s = %d: a route without its workspace's parts (handlers' in)?", r.Method, path, status)
			}
			walked++
		}
		// Naming hr in the header is refused on every route of a workspace.
		status, got := ed.try(2*time.Second, r.Method, fill(r.Path, ids[0])+query(ids[0]), body(ids[0]), hrHeader)
		if status != http.StatusForbidden || leaks(got) {
			t.Errorf("default's member %s %s in hr = %d, want 403", r.Method, r.Path, status)
		}
		refused++
	}
	t.Logf("walked %d requests as default's member (statuses %v) and %d naming hr", walked, statuses, refused)
	if walked < 150 || refused < 50 {
		t.Errorf("walked %d requests and %d in hr: the walk missed the router", walked, refused)
	}
	if status, _ := ed.try(2*time.Second, http.MethodPost, "/workspace", "", http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}); status != http.StatusForbidden {
		t.Errorf("default's member switching to no workspace = %d, want 403", status)
	}
	resp, _ := ed.post("/workspace", url.Values{"workspace": {"hr"}}, false)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("default's member switching to hr = %d, want 403", resp.StatusCode)
	}
	edToken := ed.createToken("every workspace", "editor")
	if status := callAPIIn(t, srv.URL, http.MethodGet, "/api/v1/documents", edToken, "hr"); status != http.StatusForbidden {
		t.Errorf("ed's token in hr = %d, want 403", status)
	}

	// Nothing of hr was deleted or changed.
	if after, err := hr.Stats(ctx); err != nil || after != before {
		t.Errorf("hr after the walk = %+v, %v; want %+v", after, err, before)
	}
	if d, err := hr.Document(ctx, hrDocs[0].ID); err != nil || d.Status != graphrag.StatusDone || d.Name != secretName {
		t.Errorf("hr's document after the walk = %+v, %v", d, err)
	}
	if _, turns, err := hr.Conversation(ctx, graphrag.AllConversations, convs[0].ID); err != nil || len(turns) != 1 {
		t.Errorf("hr's conversation after the walk = %d turns, %v; want 1", len(turns), err)
	}

	// hr's member reads hr's document by the same routes: the walk does reach the data.
	for _, path := range []string{"/api/v1/documents", "/api/v1/documents/" + hrDocs[0].ID, "/api/v1/search?q=Qorvexa+band",
		"/api/v1/passages/" + chunks[0].ID, "/documents", "/api/v1/documents/" + hrDocs[0].ID + "/original"} {
		if status, got := hrb.try(10*time.Second, http.MethodGet, path, "", nil); status != http.StatusOK || !leaks(got) {
			t.Errorf("hr's member GET %s = %d, want 200 with hr's document", path, status)
		}
	}
	// And an hr token limited to hr works there and nowhere else; its member sees no default document.
	hrToken := hrb.createTokenIn("hr script", "reader", "hr")
	if status := callAPIIn(t, srv.URL, http.MethodGet, "/api/v1/documents", hrToken, ""); status != http.StatusOK {
		t.Errorf("hr's token without a header = %d, want 200 (its workspace)", status)
	}
	if status := callAPIIn(t, srv.URL, http.MethodGet, "/api/v1/documents", hrToken, graphrag.DefaultWorkspace); status != http.StatusForbidden {
		t.Errorf("hr's token in default = %d, want 403", status)
	}
	if _, got := hrb.try(10*time.Second, http.MethodGet, "/api/v1/documents/"+defDocs[0].ID, "", nil); strings.Contains(got, "Lumen") || strings.Contains(got, "handbook.md") {
		t.Error("hr's member read default's document")
	}
}

// createTokenIn makes a token limited to workspace on the settings page and returns it.
func (b *browser) createTokenIn(name, role, workspace string) string {
	b.t.Helper()
	resp, page := b.post("/settings/tokens", url.Values{"name": {name}, "role": {role}, "workspace": {workspace}}, false)
	token := page.Find("#new-token-value").AttrOr("value", "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(token, "hwt_") {
		b.t.Fatalf("create token in %s: %d, token %q", workspace, resp.StatusCode, token)
	}
	return token
}

// callAPIIn calls a program route with a token, naming workspace in the header when not empty.
func callAPIIn(t *testing.T, base, method, path, token, workspace string) int {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if workspace != "" {
		req.Header.Set("X-Hopwise-Workspace", workspace)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The page header's switch: offered to whoever has two workspaces or more, it moves the pages to the one
// chosen, whose documents alone they show; one with a single workspace sees no switch.
func TestWorkspaceSwitchInThePageHeader(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{Workspaces: true})
	ctx := t.Context()
	admin, _, err := app.Auth.Login(ctx, "ana", testPassword, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Auth.CreateWorkspace(ctx, admin, "hr", "Human resources"); err != nil {
		t.Fatal(err)
	}
	ana := signIn(t, app, srv, "ana")
	if resp, _ := ana.upload([]file{{name: "handbook.md", body: []byte(publicText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to default: %d", resp.StatusCode)
	}
	waitDocuments(t, app.Store, 1)
	_, page := ana.get("/documents")
	var offered []string
	page.Find("form.workspace-switch select[name=workspace] option").Each(func(_ int, o *goquery.Selection) {
		offered = append(offered, o.AttrOr("value", ""))
	})
	if !slices.Equal(offered, []string{graphrag.DefaultWorkspace, "hr"}) {
		t.Fatalf("the admin's switch offers %v, want default and hr", offered)
	}
	if sel := page.Find("form.workspace-switch option[selected]").AttrOr("value", ""); sel != graphrag.DefaultWorkspace {
		t.Errorf("the switch marks %q, want default", sel)
	}
	if !strings.Contains(page.Find("#documents, main").Text(), "handbook.md") {
		t.Error("default's documents page lacks its document")
	}
	resp, _ := ana.post("/workspace", url.Values{"workspace": {"hr"}}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("switch to hr = %d to %q, want 303 to /", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := ana.upload([]file{{name: secretName, body: []byte(secretText)}}, false); resp.StatusCode >= 400 {
		t.Fatalf("upload to hr: %d", resp.StatusCode)
	}
	waitDocuments(t, app.Workspace(t, "hr"), 1)
	_, page = ana.get("/documents")
	text := page.Find("main").Text()
	if !strings.Contains(text, secretName) || strings.Contains(text, "handbook.md") {
		t.Errorf("hr's documents page = %q, want hr's document alone", text)
	}
	if sel := page.Find("form.workspace-switch option[selected]").AttrOr("value", ""); sel != "hr" {
		t.Errorf("the switch marks %q after switching, want hr", sel)
	}
	if docs, _ := app.Store.Documents(ctx); len(docs) != 1 {
		t.Errorf("default holds %d documents after an upload in hr, want 1", len(docs))
	}
	ed := signIn(t, app, srv, "ed")
	if _, page := ed.get("/documents"); page.Find("form.workspace-switch").Length() != 0 {
		t.Error("a member of one workspace is offered a switch")
	}
}
