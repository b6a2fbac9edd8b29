package handlers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// createToken makes a token on the settings page and returns it as the page shows it, once.
func (b *browser) createToken(name, role string) string {
	b.t.Helper()
	resp, page := b.post("/settings/tokens", url.Values{"name": {name}, "role": {role}}, false)
	token := page.Find("#new-token-value").AttrOr("value", "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(token, "hwt_") {
		b.t.Fatalf("create token: %d, token %q", resp.StatusCode, token)
	}
	if resp.Header.Get("Cache-Control") != "no-store" {
		b.t.Errorf("the page showing a token may be cached: Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	return token
}

// callAPI calls a program route as a script does: no cookie, the token as Bearer.
func callAPI(t *testing.T, base, method, path, token, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// API tokens: created on the settings page and shown once (the store keeps a hash), they open the JSON
// API, the OpenAI-compatible API and MCP with their role (a reader's token cannot delete) and stop working
// the moment they are revoked; no token or a made-up one is 401.
func TestAPITokensWorkUntilRevoked(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	ed := signIn(t, app, srv, "ed")
	editorToken := ed.createToken("import script", "editor")
	readerToken := ed.createToken("dashboard", "reader")
	_, page := ed.get("/settings")
	if page.Find("#new-token-value").Length() != 0 || strings.Contains(page.Text(), editorToken) {
		t.Error("the settings page shows a token again")
	}
	stored, _ := app.Store.Tokens(t.Context(), "")
	for _, tk := range stored {
		if strings.Contains(editorToken, tk.Hash) || strings.Contains(readerToken, tk.Hash) {
			t.Errorf("the store keeps token %s as it was given", tk.ID)
		}
	}
	mcp := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		method, path, body string
	}{
		{"GET", "/api/v1/documents", ""}, {"GET", "/api/documents", ""}, {"GET", "/v1/models", ""},
		{"GET", "/api/v1/conversations", ""}, {"POST", "/mcp", mcp},
	} {
		if got := callAPI(t, srv.URL, tc.method, tc.path, readerToken, tc.body); got != http.StatusOK {
			t.Errorf("%s %s with a reader token = %d, want 200", tc.method, tc.path, got)
		}
		for _, bad := range []string{"", "hwt_0000000000000000_0000", "not-a-token"} {
			if got := callAPI(t, srv.URL, tc.method, tc.path, bad, tc.body); got != http.StatusUnauthorized {
				t.Errorf("%s %s with token %q = %d, want 401", tc.method, tc.path, bad, got)
			}
		}
	}
	if got := callAPI(t, srv.URL, "DELETE", "/api/v1/documents/dmissing", readerToken, ""); got != http.StatusForbidden {
		t.Errorf("DELETE with a reader token = %d, want 403", got)
	}
	if got := callAPI(t, srv.URL, "DELETE", "/api/v1/documents/dmissing", editorToken, ""); got != http.StatusNotFound {
		t.Errorf("DELETE of an unknown document with an editor token = %d, want 404 (allowed, not found)", got)
	}
	if got := callAPI(t, srv.URL, "DELETE", "/api/documents/dmissing", editorToken, ""); got != http.StatusNotFound {
		t.Errorf("DELETE /api/documents with an editor token = %d, want 404", got)
	}

	// Revoke the editor token on the settings page: from the next request on it is refused.
	var id string
	for _, tk := range stored {
		if tk.Name == "import script" {
			id = tk.ID
		}
	}
	if resp, _ := ed.post("/settings/tokens/"+id+"/revoke", url.Values{}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", resp.StatusCode)
	}
	if got := callAPI(t, srv.URL, "GET", "/api/v1/documents", editorToken, ""); got != http.StatusUnauthorized {
		t.Errorf("a revoked token = %d, want 401", got)
	}
	if got := callAPI(t, srv.URL, "GET", "/api/v1/documents", readerToken, ""); got != http.StatusOK {
		t.Errorf("the other token after the revocation = %d, want 200", got)
	}

	// A 401 says how to authenticate.
	req, _ := http.NewRequest("GET", srv.URL+"/api/v1/documents", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]string
	json.NewDecoder(resp.Body).Decode(&body)
	if resp.Header.Get("WWW-Authenticate") != `Bearer realm="hopwise"` || !strings.Contains(body["error"], "Authorization: Bearer") {
		t.Errorf("401: WWW-Authenticate %q, body %v", resp.Header.Get("WWW-Authenticate"), body)
	}

	// A reader cannot mint a token above its role.
	rea := signIn(t, app, srv, "rea")
	if resp, _ := rea.post("/settings/tokens", url.Values{"name": {"x"}, "role": {"editor"}}, false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a reader's editor token: %d, want 400", resp.StatusCode)
	}
}
