package handlers

import (
	"net/http"

	"github.com/a-h/templ"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// render writes a templ component as the response.
func render(c echo.Context, status int, comp templ.Component) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().WriteHeader(status)
	return comp.Render(c.Request().Context(), c.Response().Writer)
}

// meta is the layout view model of a page.
func meta(c echo.Context, title string, nav web.Nav) web.Meta {
	m := web.Meta{Title: title, Nav: nav, CSRF: csrfToken(c)}
	if p, ok := principalOf(c); ok && !p.Local {
		m.User, m.Admin = p.Name(), p.Role == auth.Admin
	}
	m.Workspace, m.Workspaces = workspaceOf(c), workspaceMenu(c)
	return m
}

// csrfToken is the token the CSRF middleware expects back with state-changing requests.
func csrfToken(c echo.Context) string {
	t, _ := c.Get(csrfContextKey).(string)
	return t
}

// isHTMX reports whether htmx sent the request, which then wants a fragment rather than a page.
func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

// redirect answers a form sent without JavaScript with a redirect to a page (Post/Redirect/Get).
func redirect(c echo.Context, to string) error { return c.Redirect(http.StatusSeeOther, to) }
