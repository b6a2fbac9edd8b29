package handlers_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
)

func cookieNamed(resp *http.Response, name string) *http.Cookie {
	for _, c := range resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Signing in: a wrong password is 401 and says nothing of which part was wrong; the right one sets an
// HttpOnly, SameSite=Lax session cookie (Secure over TLS, here behind a trusted proxy saying https), a new
// session at each sign-in (a session cookie planted before is worthless) and a new CSRF session; signing
// out ends the session on the server, not only in the browser.
func TestSignInSessionCookieAndSignOut(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	b := anonymous(t, app, srv)
	resp, page := b.post("/login", url.Values{"name": {"ed"}, "password": {"not the password"}}, false)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(page.Find("#login-error").Text(), "user name or the password") {
		t.Errorf("wrong password: %d %q", resp.StatusCode, page.Find("#login-error").Text())
	}
	if cookieNamed(resp, "hopwise_auth") != nil {
		t.Error("a failed sign-in set a session cookie")
	}

	// Another browser signs in: its cookie is a session too, and must stay another one.
	other := signIn(t, app, srv, "ed")
	form := url.Values{"name": {"ed"}, "password": {testPassword}, "next": {"/documents"}, "_csrf": {b.token}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-Proto", "https")
	resp, _ = b.do(req)
	ck := cookieNamed(resp, "hopwise_auth")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/documents" || ck == nil {
		t.Fatalf("sign-in: %d to %q, cookie %v", resp.StatusCode, resp.Header.Get("Location"), ck)
	}
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || !ck.Secure || ck.MaxAge != int((12*time.Hour).Seconds()) {
		t.Errorf("session cookie %+v: want HttpOnly, SameSite=Lax, Secure behind a trusted https proxy, Max-Age 12h", ck)
	}
	if csrf := cookieNamed(resp, "hopwise_session"); csrf == nil || !csrf.Secure || !csrf.HttpOnly {
		t.Errorf("the CSRF cookie after signing in over https: %+v, want a new one, Secure and HttpOnly", csrf)
	}
	if len(ck.Value) < 64 {
		t.Errorf("session secret %q is short", ck.Value)
	}
	if _, err := app.Store.Session(t.Context(), ck.Value); err == nil {
		t.Error("the store keeps the session under the cookie's secret, not its hash")
	}

	// Over plain HTTP without a proxy's word, the cookie is not Secure (the browser would drop it).
	b2 := anonymous(t, app, srv)
	resp, _ = b2.post("/login", url.Values{"name": {"ed"}, "password": {testPassword}}, false)
	if ck := cookieNamed(resp, "hopwise_auth"); ck == nil || ck.Secure {
		t.Errorf("cookie over plain HTTP: %+v, want set and not Secure", ck)
	}
	b2.refreshToken("/settings")
	old := b2.client.Jar.Cookies(mustURL(t, srv.URL))

	resp, _ = b2.post("/logout", url.Values{}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/login" {
		t.Errorf("sign-out: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The old cookie, presented again, opens nothing.
	replay := anonymous(t, app, srv)
	replay.client.Jar.SetCookies(mustURL(t, srv.URL), old)
	if resp, _ := replay.get("/settings"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("the signed-out session's cookie: %d to %q, want a redirect to sign in", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := other.get("/settings"); resp.StatusCode != http.StatusOK {
		t.Errorf("the other browser's session after this one signed out: %d", resp.StatusCode)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The sign-in form, the account forms and the token forms are state changes: without the CSRF token, or
// from another origin, they are refused with 403 and change nothing.
func TestAccountFormsNeedTheCSRFToken(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	ana := signIn(t, app, srv, "ana")
	cases := []struct {
		path string
		form url.Values
	}{
		{"/login", url.Values{"name": {"ana"}, "password": {testPassword}}},
		{"/settings/tokens", url.Values{"name": {"stolen"}, "role": {"admin"}}},
		{"/settings/password", url.Values{"current": {testPassword}, "new": {"an attacker's password"}, "confirm": {"an attacker's password"}}},
		{"/admin/users", url.Values{"name": {"mallory"}, "password": {"an attacker's password"}, "role": {"admin"}}},
		{"/logout", url.Values{}},
	}
	for _, tc := range cases {
		for _, how := range []string{"no token", "other origin"} {
			form := url.Values{}
			for k, v := range tc.form {
				form[k] = v
			}
			if how == "other origin" {
				form.Set("_csrf", ana.token)
			}
			req, _ := http.NewRequest(http.MethodPost, srv.URL+tc.path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if how == "other origin" {
				req.Header.Set("Origin", "http://evil.example")
			}
			if resp, _ := ana.do(req); resp.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s with %s = %d, want 403", tc.path, how, resp.StatusCode)
			}
		}
	}
	accounts, _ := app.Auth.Accounts(t.Context())
	tokens, _ := app.Store.Tokens(t.Context(), "")
	if len(accounts) != 3 || len(tokens) != 0 {
		t.Errorf("after the refused posts: %d accounts, %d tokens; want 3 and 0", len(accounts), len(tokens))
	}
	if resp, _ := ana.get("/settings"); resp.StatusCode != http.StatusOK {
		t.Errorf("ana was signed out by a refused post: %d", resp.StatusCode)
	}
}

// Failed sign-ins from one client are refused with 429 and Retry-After after 20 within 15 minutes,
// whatever names it tries; the audit log has each failure with the client's address.
func TestSignInIsRateLimitedPerClient(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	b := anonymous(t, app, srv)
	for i := range 20 {
		if resp, _ := b.post("/login", url.Values{"name": {"guess" + string(rune('a'+i))}, "password": {"wrong password"}}, false); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d, want 401", i+1, resp.StatusCode)
		}
	}
	resp, page := b.post("/login", url.Values{"name": {"ana"}, "password": {testPassword}}, false)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || cookieNamed(resp, "hopwise_auth") != nil {
		t.Errorf("21st attempt, right password: %d, Retry-After %q; want 429, Retry-After, no session", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if !strings.Contains(page.Find("#login-error").Text(), "Too many failed sign-ins") {
		t.Errorf("the 429 page says %q", page.Find("#login-error").Text())
	}
	events, _ := app.Auth.Audit(t.Context(), 100)
	failed := 0
	for _, e := range events {
		if e.Action == "sign-in failed" && e.Client == "127.0.0.1" {
			failed++
		}
	}
	if failed != 20 {
		t.Errorf("audit log has %d failed sign-ins from 127.0.0.1, want 20", failed)
	}
}

// Behind a trusted proxy the client is the address it forwards: the rate limit counts it and the audit
// log names it. From an untrusted peer the header is ignored, so inventing addresses dodges nothing.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		want    string
	}{
		{"trusted proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, "203.0.113.9"},
		{"no proxy configured", nil, "127.0.0.1"},
		{"another proxy", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app, srv := teamApp(t, webtest.Options{TrustedProxies: tc.trusted})
			b := anonymous(t, app, srv)
			for i := range 20 {
				form := url.Values{"name": {"rea"}, "password": {"wrong password"}, "_csrf": {b.token}}
				req, _ := http.NewRequest(http.MethodPost, srv.URL+"/login", strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("X-Forwarded-For", "198.51.100."+string(rune('0'+i%10))+", 203.0.113.9")
				b.do(req)
			}
			events, _ := app.Auth.Audit(t.Context(), 1)
			if len(events) != 1 || events[0].Client != tc.want {
				t.Errorf("audit client = %+v, want %s", events, tc.want)
			}
		})
	}
}

// On a laptop (no accounts, nothing required) nobody signs in, as before accounts existed; creating the
// first account (an admin) on the admin page turns sign-in on.
func TestLaptopModeAsksNoSignInUntilAnAccountExists(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	for _, path := range []string{"/", "/documents", "/settings", "/admin", "/api/v1/documents"} {
		if resp, _ := b.get(path); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s without accounts = %d, want 200", path, resp.StatusCode)
		}
	}
	if resp, _ := b.get("/login"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET /login without accounts = %d, want a redirect home", resp.StatusCode)
	}
	resp, page := b.post("/admin/users", url.Values{"name": {"me"}, "password": {testPassword}, "role": {"editor"}}, false)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page.Find(".notice.bad").Text(), "first account must be an admin") {
		t.Errorf("first account as editor: %d %q", resp.StatusCode, page.Find(".notice.bad").Text())
	}
	resp, _ = b.post("/admin/users", url.Values{"name": {"me"}, "password": {testPassword}, "role": {"admin"}}, false)
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Fatalf("first admin: %d to %q, want a redirect to sign in", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := b.get("/documents"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET /documents once an account exists = %d, want a redirect to sign in", resp.StatusCode)
	}
}

// The admin page creates accounts, changes roles and disables them, and its audit log lists sign-ins,
// their failures, uploads and deletions.
func TestAdminManagesAccountsAndReadsTheAuditLog(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	anon := anonymous(t, app, srv)
	anon.post("/login", url.Values{"name": {"ed"}, "password": {"wrong password"}}, false)
	ana := signIn(t, app, srv, "ana")
	resp, _ := ana.post("/admin/users", url.Values{"name": {"Zoe"}, "password": {testPassword}, "role": {"reader"}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create zoe: %d", resp.StatusCode)
	}
	resp, page := ana.post("/admin/users", url.Values{"name": {"zoe"}, "password": {testPassword}, "role": {"reader"}}, false)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page.Find(".notice.bad").Text(), "exists") {
		t.Errorf("a second zoe: %d %q", resp.StatusCode, page.Find(".notice.bad").Text())
	}
	zoe, err := app.Store.AccountNamed(t.Context(), "zoe")
	if err != nil {
		t.Fatal(err)
	}
	ana.post("/admin/users/"+zoe.ID+"/role", url.Values{"role": {"editor"}}, false)
	zb := signIn(t, app, srv, "zoe")
	resp, _ = zb.upload([]file{{"notes.txt", []byte("Zoe's notes about Munich.")}}, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("editor upload: %d", resp.StatusCode)
	}
	docs := app.WaitDone(t, 10*time.Second)
	resp, _ = zb.post("/documents/"+docs[0].ID+"/delete", url.Values{"confirmed": {"yes"}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor delete: %d", resp.StatusCode)
	}
	ana.post("/admin/users/"+zoe.ID+"/disabled", url.Values{"disabled": {"yes"}}, false)
	if resp, _ := zb.get("/documents"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a disabled account's session: %d, want a redirect to sign in", resp.StatusCode)
	}
	_, page = ana.get("/admin")
	if page.Find(`#users tr[data-user="zoe"]`).Find(".bad").Text() != "Disabled" {
		t.Errorf("zoe's row: %q", page.Find(`#users tr[data-user="zoe"]`).Text())
	}
	for _, action := range []string{"sign-in", "sign-in failed", "account created", "role changed", "upload", "delete", "account disabled"} {
		if page.Find(`#audit tr[data-action="`+action+`"]`).Length() == 0 {
			t.Errorf("the audit log shows no %q", action)
		}
	}
	if !strings.Contains(page.Find(`#audit tr[data-action="account disabled"]`).Text(), "127.0.0.1") {
		t.Errorf("the disabling's row does not name the admin's address: %q", page.Find(`#audit tr[data-action="account disabled"]`).Text())
	}
	if !strings.Contains(page.Find(`#audit tr[data-action="delete"]`).Text(), docs[0].ID) {
		t.Errorf("the delete's row does not name the document: %q", page.Find(`#audit tr[data-action="delete"]`).Text())
	}
	// The confirmation page of a delete is no delete.
	if n := page.Find(`#audit tr[data-action="delete"]`).Length(); n != 1 {
		t.Errorf("%d deletes in the audit log, want 1", n)
	}
	if resp, _ := signIn(t, app, srv, "rea").get("/admin"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a reader's GET /admin = %d, want 403", resp.StatusCode)
	}
}

// After signing in, the form leads only to a page of this server: another site's address in next (an
// open redirect a phishing mail could use) leads home.
func TestSignInNeverLeadsToAnotherSite(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	for next, want := range map[string]string{
		"/documents?page=2": "/documents?page=2", "//evil.example/x": "/", "https://evil.example": "/",
		"/\\evil.example": "/", "javascript:alert(1)": "/", "": "/",
	} {
		b := anonymous(t, app, srv)
		resp, _ := b.post("/login", url.Values{"name": {"rea"}, "password": {testPassword}, "next": {next}}, false)
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || got != want {
			t.Errorf("sign-in with next=%q: %d to %q, want %q", next, resp.StatusCode, got, want)
		}
	}
}

// "Sign out every other browser" on the settings page ends the account's other sessions; this browser
// goes on.
func TestSignOutEveryOtherBrowser(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	phone := signIn(t, app, srv, "ed")
	laptop := signIn(t, app, srv, "ed")
	resp, _ := laptop.post("/settings/sessions/end", url.Values{}, false)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/settings?done=others" {
		t.Fatalf("sign out the others: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := laptop.get("/settings?done=others"); resp.StatusCode != http.StatusOK {
		t.Errorf("this browser after signing the others out: %d, want 200", resp.StatusCode)
	}
	if resp, _ := phone.get("/settings"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the other browser: %d, want a redirect to sign in", resp.StatusCode)
	}
}
