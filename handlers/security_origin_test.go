package handlers_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// Issue 21, item 1 (DNS rebinding): a request whose Host is not a loopback name or the configured public
// name is answered 421 with nothing of the collection, whatever its path or method.
func TestForeignHostIsMisdirected(t *testing.T) {
	b := newBrowser(t, webtest.Options{PublicHosts: []string{"hopwise.example.org", "team.example:8443"}})
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria.")}}, true)
	docs := b.app.WaitDone(t, 10*time.Second)
	port := b.srv.Listener.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name, host, method, path string
		want                     int
	}{
		{"rebound name reading the token", fmt.Sprintf("rebind.test:%d", port), "GET", "/documents", 421},
		{"rebound name deleting", fmt.Sprintf("rebind.test:%d", port), "POST", "/documents/" + docs[0].ID + "/delete", 421},
		{"rebound name on the API", "rebind.test", "DELETE", "/api/documents/" + docs[0].ID, 421},
		{"rebound name asking", "rebind.test", "POST", "/api/ask", 421},
		{"a LAN address not configured", "192.168.1.20:8080", "GET", "/", 421},
		{"a public name on another port", "team.example:9000", "GET", "/", 421},
		{"health probes answer any name", "10.0.0.5:8080", "GET", "/healthz", 200},
		{"127.0.0.1", fmt.Sprintf("127.0.0.1:%d", port), "GET", "/documents", 200},
		{"localhost", fmt.Sprintf("localhost:%d", port), "GET", "/documents", 200},
		{"LOCALHOST without a port", "LOCALHOST", "GET", "/documents", 200},
		{"a .localhost name", "app.localhost:8080", "GET", "/documents", 200},
		{"another loopback address", "127.0.0.2", "GET", "/documents", 200},
		{"IPv6 loopback", fmt.Sprintf("[::1]:%d", port), "GET", "/documents", 200},
		{"the configured public name", "hopwise.example.org", "GET", "/documents", 200},
		{"the configured public name with a port", "hopwise.example.org:443", "GET", "/documents", 200},
		{"the configured name and port", "team.example:8443", "GET", "/documents", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, b.srv.URL+tt.path, strings.NewReader("confirmed=yes"))
			req.Host = tt.host
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			resp, doc := b.do(req)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if tt.want == 421 && (strings.Contains(doc.Text(), "notes.txt") || strings.Contains(doc.Text(), b.token) || len(resp.Cookies()) > 0) {
				t.Errorf("a misdirected answer told something: %q", doc.Text())
			}
		})
	}
	if got, _ := b.app.Store.Documents(context.Background()); len(got) != 1 {
		t.Errorf("documents after the rebinding attempts: %d, want 1", len(got))
	}
}

// Issue 21, item 2: a neighbour on another port of 127.0.0.1 (the same site: cookies ignore ports) sets
// the cookie to a value it knows and sends that value as the token. The token must be the server's HMAC
// of the session, and same-site requests are refused whatever they carry.
func TestCSRFTokenIsBoundToTheSessionAndTheOrigin(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria.")}}, true)
	docs := b.app.WaitDone(t, 10*time.Second)
	del := "/documents/" + docs[0].ID + "/delete"
	session := sessionCookieOf(t, b)
	known := strings.Repeat("ab", 16)
	sibling := "http://127.0.0.1:1"
	tests := []struct {
		name    string
		cookie  string // Cookie header; empty: none
		token   string
		headers map[string]string
	}{
		{"the old double-submit cookie set by a neighbour", "hopwise_csrf=" + known, known, nil},
		{"the session cookie set to a known value, the value as the token", "hopwise_session=" + known, known, nil},
		{"a known session with a token from another session", "hopwise_session=" + known, b.token, nil},
		{"the real session, a forged token", "hopwise_session=" + session, known, nil},
		{"same-site with the real session and token", "hopwise_session=" + session, b.token,
			map[string]string{"Sec-Fetch-Site": "same-site", "Origin": sibling}},
		{"another origin without Sec-Fetch-Site", "hopwise_session=" + session, b.token, map[string]string{"Origin": sibling}},
		{"no cookie at all", "", b.token, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, b.srv.URL+del, strings.NewReader(url.Values{"confirmed": {"yes"}, "_csrf": {tt.token}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.cookie != "" {
				req.Header.Set("Cookie", tt.cookie)
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %d, want 403", resp.StatusCode)
			}
		})
	}
	if got, _ := b.app.Store.Documents(context.Background()); len(got) != 1 {
		t.Fatalf("documents after the forged deletes: %d, want 1", len(got))
	}
	// The page's own request, from the same origin, still works.
	resp, _ := b.post(del, url.Values{"confirmed": {"yes"}}, true)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the page's delete: %d", resp.StatusCode)
	}
}

func sessionCookieOf(t *testing.T, b *browser) string {
	t.Helper()
	u, _ := url.Parse(b.srv.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == "hopwise_session" {
			return c.Value
		}
	}
	t.Fatal("no session cookie")
	return ""
}
