package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// programAccess guards the routes programs call (/api/v1, the OpenAI-compatible /v1 and MCP's /mcp) against
// pages of other origins. Who may call them is decided before it, for every route, by access (access.go):
// a Bearer API token on these routes, the session cookie of Hopwise's own pages, or on a laptop without
// accounts the local user.
//
// What it refuses is a page of another origin in someone's browser. Such a page can make the browser send
// requests here, GET or POST, form or fetch: CORS only stops it from reading the answers, not the upload,
// delete or question the request makes. These routes take no cookies and no CSRF token (csrfProtection
// lets script calls through), so the browser's own headers are the defence: a request whose Origin is
// another origin, or that Sec-Fetch-Site marks as cross-site or same-site (another port on 127.0.0.1 is
// the same site), is refused. Programs send neither header; an address typed into the browser's bar
// (Sec-Fetch-Site: none) may read.
func programAccess(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !sameOriginOrProgram(c) {
			return echo.NewHTTPError(http.StatusForbidden, "This interface answers programs and Hopwise's own pages, not pages of other sites. "+
				"Call it from a script or a server, not from a web page's JavaScript.")
		}
		return next(c)
	}
}

func sameOriginOrProgram(c echo.Context) bool {
	r := c.Request()
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin":
	case "none":
		if !safeMethod(r.Method) {
			return false
		}
	default:
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || o == c.Scheme()+"://"+r.Host
}
