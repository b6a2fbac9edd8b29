package handlers

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"

	"github.com/labstack/echo/v4"
)

const (
	csrfContextKey = "csrf"
	// sessionCookie names the browser's session; the CSRF token is derived from it with the server's secret.
	sessionCookie = "hopwise_session"
	sessionBytes  = 16
)

// csrfProtection guards every state-changing request with three checks, each refused with 403:
//   - a browser's Sec-Fetch-Site must be same-origin: cross-site and same-site requests (another port of
//     127.0.0.1 is the same site, and cookies ignore ports) are refused;
//   - an Origin header must be this server's own origin;
//   - the token in the X-CSRF-Token header, the _csrf query parameter or (except for uploads, whose
//     bodies are not parsed before the check) the _csrf form field must be the HMAC, under the server's
//     secret, of the session cookie. A neighbour that sets the cookie to a value it knows still cannot
//     compute the token.
//
// Scripts calling /api/, /v1/ or /mcp without any browser header (no Origin, no Sec-Fetch-Site, no
// cookie) carry no ambient credentials and are let through. Every response but a program route's gets the
// session cookie when it lacks one (a client library keeps cookies: one set by /v1/models would make its
// next POST look like a browser's), and pages read the token from the context (csrfToken).
func csrfProtection(secret []byte) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			session := sessionOf(c)
			if session == "" && !isProgramPath(c.Request().URL.Path) {
				session = newSession(c)
			}
			token := csrfTokenFor(secret, session)
			c.Set(csrfContextKey, token)
			if safeMethod(c.Request().Method) || isScriptAPICall(c) {
				return next(c)
			}
			if !fromThisOrigin(c) || !hmac.Equal([]byte(sentToken(c)), []byte(token)) {
				return echo.NewHTTPError(http.StatusForbidden, "This request was refused because it did not come from a Hopwise page (CSRF check). Reload the page and try again.")
			}
			return next(c)
		}
	}
}

// sessionOf is the request's session cookie when it is well formed.
func sessionOf(c echo.Context) string {
	ck, err := c.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	if b, err := hex.DecodeString(ck.Value); err != nil || len(b) != sessionBytes {
		return ""
	}
	return ck.Value
}

func newSession(c echo.Context) string {
	b := make([]byte, sessionBytes)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	// Secure once the browser came over https (its own TLS, or a proxy's word: a client that invents the
	// header only loses its own cookie).
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: c.Scheme() == "https"})
	return id
}

// csrfTokenFor is the token of a session: it cannot be computed without the secret.
func csrfTokenFor(secret []byte, session string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("hopwise csrf\x00" + session))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions || m == http.MethodTrace
}

// fromThisOrigin refuses what a browser marks as coming from another origin. The Host header it compares
// with has passed the host allow-list.
func fromThisOrigin(c echo.Context) bool {
	r := c.Request()
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != c.Scheme()+"://"+r.Host {
		return false
	}
	return true
}

// sentToken is the token the request carries; an upload's body is not parsed for it.
func sentToken(c echo.Context) string {
	if t := c.Request().Header.Get("X-CSRF-Token"); t != "" {
		return t
	}
	if t := c.QueryParam("_csrf"); t != "" || isUpload(c) {
		return t
	}
	return c.FormValue("_csrf")
}

// isScriptAPICall reports a request to a program's route that no browser sent.
func isScriptAPICall(c echo.Context) bool {
	r := c.Request()
	if !isProgramPath(r.URL.Path) {
		return false
	}
	return r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" && r.Header.Get("Cookie") == ""
}
