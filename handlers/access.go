package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

const (
	principalKey = "principal"
	// authCookie carries a signed-in browser's session secret (the CSRF cookie, sessionCookie, is another).
	authCookie = "hopwise_auth"
)

// access enforces routeRules: it finds who the request comes from (a Bearer token on the program routes,
// else the session cookie; on a laptop install without accounts, the local user), refuses with 401 (or a
// redirect to the sign-in page) whom it does not know and with 403 a role below the route's, and writes
// the audited actions that succeed to the audit log.
func (s *server) access(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		rule, ok := ruleOf(c)
		if !ok {
			if c.Path() == "" || knownPath(c.Path()) || s.groupNotFound[c.Path()] { // Echo answers 404 or 405
				return next(c)
			}
			s.Logger.Error("route without an access rule refused", "method", c.Request().Method, "path", c.Path())
			return echo.NewHTTPError(http.StatusInternalServerError, "This address has no access rule yet, so it is closed.")
		}
		if rule.bare {
			return next(c)
		}
		c.SetRequest(c.Request().WithContext(auth.WithClient(c.Request().Context(), c.RealIP())))
		p, err := s.principal(c)
		if err != nil {
			return err
		}
		var ws string
		if p != nil {
			if ws, err = s.chooseWorkspace(c, *p); err != nil {
				return err
			}
			c.Set(principalKey, *p)
			c.Set(workspaceKey, ws)
			ctx := graphrag.WithWorkspace(web.WithPermissions(c.Request().Context(), permissionsOf(*p, ws)), ws)
			c.SetRequest(c.Request().WithContext(ctx))
		}
		if rule.need == "" {
			return next(c)
		}
		if p == nil {
			return signInFirst(c)
		}
		// Account routes (settings, admin) need the account's role; the others the role in the workspace.
		role, where := p.Role, ""
		if !rule.account {
			role, where = p.RoleIn(ws), " in this workspace"
		}
		if !role.Allows(rule.need) {
			if role == "" {
				return echo.NewHTTPError(http.StatusForbidden, "You are a member of no workspace yet: ask an admin to add you to one.")
			}
			return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("Your role%s (%s) may not do this: it needs %s. An admin can change your role.", where, role, rule.need))
		}
		err = next(c)
		if rule.audit != "" && err == nil && c.Response().Status < 400 && (!rule.confirmed || c.FormValue("confirmed") == "yes") {
			s.Auth.Record(c.Request().Context(), auth.AuditEvent{Actor: p.Name(), Action: rule.audit, Target: auditTarget(c),
				Client: c.RealIP(), Detail: c.Request().Method + " " + c.Request().URL.Path, Workspace: ws})
		}
		return err
	}
}

// permissionsOf is what the pages offer p in workspace ws: the controls of the routes its role there may
// use (routeRules).
func permissionsOf(p auth.Principal, ws string) web.Permissions {
	role := p.RoleIn(ws)
	return web.Permissions{Edit: role.Allows(auth.Editor), Admin: role.Allows(auth.Admin)}
}

// ruleOf is the rule of the request's route; HEAD is served as GET.
func ruleOf(c echo.Context) (accessRule, bool) {
	method := c.Request().Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	r, ok := routeRules[method+" "+c.Path()]
	return r, ok
}

func knownPath(path string) bool {
	for key := range routeRules {
		if _, p, _ := strings.Cut(key, " "); p == path {
			return true
		}
	}
	return false
}

func groupNotFoundPaths(e *echo.Echo) map[string]bool {
	out := map[string]bool{}
	for _, r := range e.Routes() {
		if r.Method == echo.RouteNotFound {
			out[r.Path] = true
		}
	}
	return out
}

func auditTarget(c echo.Context) string {
	if names, _ := c.Get(auditNamesKey).([]string); len(names) > 0 {
		return clipNames(names, 200)
	}
	if id := c.Param("id"); id != "" {
		return id
	}
	return c.Path()
}

// auditNamesKey holds the names of the documents a request stored (auditName), which its audit entry
// names instead of the route: "upload" on "bands.md, notes.md", not on "/documents".
const auditNamesKey = "hopwise.auditNames"

// auditName adds the name of a document the request stored to its audit entry's target.
func auditName(c echo.Context, name string) {
	names, _ := c.Get(auditNamesKey).([]string)
	c.Set(auditNamesKey, append(names, name))
}

// clipNames joins names with commas, at most max bytes of them, and says how many more there were.
func clipNames(names []string, max int) string {
	out := ""
	for i, n := range names {
		next := n
		if i > 0 {
			next = ", " + n
		}
		if len(out)+len(next) > max {
			return out + fmt.Sprintf(" and %d more", len(names)-i)
		}
		out += next
	}
	return out
}

// principal is who the request comes from, nil for nobody known. Without an auth service, or while it
// enforces nothing (no accounts on a laptop), it is the local user. A Bearer token counts on the program
// routes only, and a bad one is never replaced by the cookie.
func (s *server) principal(c echo.Context) (*auth.Principal, error) {
	if s.Auth == nil || !s.Auth.Enforced() {
		p := auth.LocalPrincipal()
		return &p, nil
	}
	ctx := c.Request().Context()
	if token, ok := bearer(c); ok && isProgramPath(c.Request().URL.Path) {
		p, err := s.Auth.TokenPrincipal(ctx, token)
		return known(p, err)
	}
	ck, err := c.Cookie(authCookie)
	if err != nil {
		return nil, nil
	}
	p, err := s.Auth.SessionPrincipal(ctx, ck.Value)
	return known(p, err)
}

func known(p auth.Principal, err error) (*auth.Principal, error) {
	if errors.Is(err, auth.ErrCredentials) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

func bearer(c echo.Context) (string, bool) {
	h := c.Request().Header.Get(echo.HeaderAuthorization)
	scheme, token, ok := strings.Cut(h, " ")
	return strings.TrimSpace(token), ok && strings.EqualFold(scheme, "Bearer")
}

// principalOf is the principal access found for the request.
func principalOf(c echo.Context) (auth.Principal, bool) {
	p, ok := c.Get(principalKey).(auth.Principal)
	return p, ok
}

// signInFirst answers a request from nobody known: programs get 401 with the way to authenticate, a page
// asked for is a redirect to the sign-in page that comes back to it, htmx is sent there, the rest is 401.
func signInFirst(c echo.Context) error {
	r := c.Request()
	if isProgramPath(r.URL.Path) {
		c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="hopwise"`)
		return echo.NewHTTPError(http.StatusUnauthorized, "Authenticate with an API token: send the header Authorization: Bearer hwt_... "+
			"(create one on the Settings page of Hopwise).")
	}
	to := "/login?next=" + url.QueryEscape(r.URL.RequestURI())
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusUnauthorized)
	}
	if safeMethod(r.Method) {
		return c.Redirect(http.StatusSeeOther, to)
	}
	return echo.NewHTTPError(http.StatusUnauthorized, "Sign in first: your session ended or you are not signed in.")
}
