package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/labstack/echo/v4"
)

const testPassword = "a long test password"

// teamApp is the app with sign-in required and three accounts: ana (admin), ed (editor), rea (reader).
func teamApp(t *testing.T, opt webtest.Options) (*webtest.App, *httptest.Server) {
	t.Helper()
	opt.Auth.Required = true
	app := webtest.New(t, opt)
	if _, err := app.Auth.Bootstrap(t.Context(), "ana", testPassword); err != nil {
		t.Fatal(err)
	}
	admin, _, err := app.Auth.Login(t.Context(), "ana", testPassword, "test")
	if err != nil {
		t.Fatal(err)
	}
	for name, role := range map[string]auth.Role{"ed": auth.Editor, "rea": auth.Reader} {
		if _, err := app.Auth.CreateAccount(t.Context(), admin, name, testPassword, role); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(app.Handler)
	t.Cleanup(srv.Close)
	return app, srv
}

// anonymous is a browser that has loaded the sign-in page: it holds a CSRF cookie and its token.
func anonymous(t *testing.T, app *webtest.App, srv *httptest.Server) *browser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &browser{t: t, app: app, srv: srv, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
	b.refreshToken("/login")
	return b
}

// refreshToken reads the CSRF token of the page at path.
func (b *browser) refreshToken(path string) {
	b.t.Helper()
	resp, doc := b.get(path)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("GET %s = %d, want 200", path, resp.StatusCode)
	}
	var headers map[string]string
	if err := json.Unmarshal([]byte(doc.Find("body").AttrOr("hx-headers", "")), &headers); err != nil || headers["X-CSRF-Token"] == "" {
		b.t.Fatalf("no CSRF token in %s: %v", path, err)
	}
	b.token = headers["X-CSRF-Token"]
}

// signIn is a browser signed in as name through the sign-in form.
func signIn(t *testing.T, app *webtest.App, srv *httptest.Server, name string) *browser {
	t.Helper()
	b := anonymous(t, app, srv)
	resp, _ := b.post("/login", url.Values{"name": {name}, "password": {testPassword}, "next": {"/settings"}}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings" {
		t.Fatalf("sign in as %s: %d to %q, want 303 to /settings", name, resp.StatusCode, resp.Header.Get("Location"))
	}
	b.refreshToken("/settings")
	return b
}

// concrete fills an Echo path's parameters so the route matches.
func concrete(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || p == "*" {
			parts[i] = "x0"
		}
	}
	return strings.Join(parts, "/")
}

func routesOf(t *testing.T, app *webtest.App) []*echo.Route {
	t.Helper()
	e, ok := app.Handler.(*echo.Echo)
	if !ok {
		t.Fatalf("the handler is a %T, not Echo", app.Handler)
	}
	return e.Routes()
}

// send makes a request as b (its cookies and CSRF token, as a page's script would) and returns the status
// and where it redirects.
func (b *browser) send(method, path string) (int, string) {
	b.t.Helper()
	req, _ := http.NewRequest(method, b.srv.URL+path, strings.NewReader("{}"))
	req.Header.Set("X-CSRF-Token", b.token)
	req.Header.Set("Content-Type", "application/json")
	resp, _ := b.do(req)
	return resp.StatusCode, resp.Header.Get("Location")
}

// readerMay are the routes that change something which a reader may call.
var readerMay = map[string]bool{
	"POST /chat/ask": true, "POST /chat/stop/:run": true, "POST /chat/retry/:turn": true, "POST /api/ask": true, "POST /api/v1/ask": true,
	"POST /v1/chat/completions": true, "POST /mcp": true, "POST /logout": true,
	"POST /settings/password": true, "POST /settings/tokens": true, "POST /settings/tokens/:id/revoke": true,
	"POST /settings/sessions/end": true, "POST /workspace": true,
}

// Every route of the router declares what it requires (a new route without a rule fails here, and is
// refused while serving); with sign-in on, nobody reaches a non-public route unsigned and a reader
// reaches no route that changes documents, conversations or accounts.
func TestEveryRouteDeclaresItsAccess(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	routes := routesOf(t, app)
	registered := map[string]bool{}
	for _, r := range routes {
		if r.Method == echo.RouteNotFound {
			continue
		}
		key := r.Method + " " + r.Path
		registered[key] = true
		if _, ok := handlers.RouteNeed(key); !ok {
			t.Errorf("route %s declares no access requirement: add it to routeRules (handlers/access_rules.go)", key)
		}
	}
	for _, key := range handlers.RuleKeys() {
		if !registered[key] {
			t.Errorf("routeRules names %s, which is no route", key)
		}
	}

	nobody := anonymous(t, app, srv)
	rea := signIn(t, app, srv, "rea")
	checked, writes := 0, 0
	for _, r := range routes {
		if r.Method == echo.RouteNotFound {
			continue
		}
		key := r.Method + " " + r.Path
		need, _ := handlers.RouteNeed(key)
		if need == "" {
			continue
		}
		path := concrete(r.Path)
		status, loc := nobody.send(r.Method, path)
		if status != http.StatusUnauthorized && !(status == http.StatusSeeOther && strings.HasPrefix(loc, "/login?next=")) {
			t.Errorf("anonymous %s %s = %d (to %q), want 401 or a redirect to the sign-in page", r.Method, path, status, loc)
		}
		checked++
		// A write route is any but GET, except what a reader does: ask, stop an answer, sign out and
		// manage their own password and tokens. The admin's pages are closed to readers too.
		if r.Method == http.MethodGet && need != auth.Admin || readerMay[key] {
			continue
		}
		writes++
		if status, _ := rea.send(r.Method, path); status != http.StatusForbidden {
			t.Errorf("reader %s %s = %d, want 403", r.Method, path, status)
		}
	}
	if checked < 50 || writes < 20 {
		t.Errorf("checked %d routes and %d write routes: the walk missed the router", checked, writes)
	}
}
