package handlers

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// routesAuth adds signing in and out, the first admin's setup, one's settings and the admin page.
func (s *server) routesAuth(e *echo.Echo) {
	e.GET("/login", s.loginPage)
	e.POST("/login", s.loginSubmit)
	e.POST("/logout", s.logout)
	e.GET("/setup", s.setupPage)
	e.POST("/setup", s.setupSubmit)
	e.GET("/settings", s.settingsPage)
	e.POST("/settings/password", s.passwordChange)
	e.POST("/settings/tokens", s.tokenCreate)
	e.POST("/settings/tokens/:id/revoke", s.tokenRevoke)
	e.POST("/settings/sessions/end", s.sessionsEnd)
	e.GET("/admin", s.adminPage)
	e.POST("/admin/users", s.userCreate)
	e.POST("/admin/users/:id/role", s.userRole)
	e.POST("/admin/users/:id/disabled", s.userDisabled)
	e.POST("/admin/users/:id/password", s.userPassword)
	e.POST("/admin/tokens/:id/revoke", s.adminTokenRevoke)
	e.POST("/admin/workspaces", s.workspaceCreate)
	e.POST("/admin/workspaces/:id/membership", s.membershipSet)
	e.POST("/admin/workspaces/:id/delete", s.workspaceDelete)
	e.DELETE("/api/v1/workspaces/:id", s.apiWorkspaceDelete)
	e.POST("/settings/entity-types", s.entityTypesSet)
	e.POST("/workspace", s.workspaceSwitch)
}

// signingIn reports whether this server asks anyone to sign in; without, the sign-in pages lead home.
func (s *server) signingIn() bool { return s.Auth != nil && s.Auth.Enforced() }

func (s *server) loginPage(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if p, ok := principalOf(c); !s.signingIn() || ok && !p.Local {
		return redirect(c, next)
	}
	return render(c, http.StatusOK, web.LoginView(web.LoginPage{Meta: meta(c, "Sign in", ""), Next: next, EndedNotice: c.QueryParam("next") != ""}))
}

func (s *server) loginSubmit(c echo.Context) error {
	if !s.signingIn() {
		return redirect(c, "/")
	}
	ctx := c.Request().Context()
	page := web.LoginPage{Meta: meta(c, "Sign in", ""), Next: safeNext(c.FormValue("next")), Name: c.FormValue("name")}
	_, secret, err := s.Auth.Login(ctx, page.Name, c.FormValue("password"), c.RealIP())
	var throttled *auth.ThrottledError
	switch {
	case errors.As(err, &throttled):
		c.Response().Header().Set("Retry-After", retryAfter(throttled))
		page.Error = "Too many failed sign-ins for this account or from this address: wait a few minutes, then try again."
		return render(c, http.StatusTooManyRequests, web.LoginView(page))
	case errors.Is(err, auth.ErrCredentials):
		page.Error = "The user name or the password is not right."
		return render(c, http.StatusUnauthorized, web.LoginView(page))
	case err != nil:
		return err
	}
	s.startBrowserSession(c, secret)
	return redirect(c, page.Next)
}

// startBrowserSession gives the browser the cookie of a new session, and a new CSRF session with it: a
// CSRF token someone learnt before the sign-in is worthless after it. The session the browser had is
// ended.
func (s *server) startBrowserSession(c echo.Context, secret string) {
	if old, err := c.Cookie(authCookie); err == nil {
		if err := s.Auth.EndSession(c.Request().Context(), old.Value); err != nil {
			s.Logger.Warn("end the previous session", "err", err)
		}
	}
	c.SetCookie(&http.Cookie{Name: authCookie, Value: secret, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.servedOverTLS(c), MaxAge: int(s.Auth.Absolute().Seconds())})
	newSession(c)
}

func (s *server) logout(c echo.Context) error {
	p, _ := principalOf(c)
	if s.Auth != nil {
		if err := s.Auth.Logout(c.Request().Context(), p, c.RealIP()); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: authCookie, Value: "", Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.servedOverTLS(c), MaxAge: -1})
	return redirect(c, "/login")
}

func (s *server) setupPage(c echo.Context) error {
	token := c.QueryParam("token")
	if s.Auth == nil || s.Auth.SetupName(token) == "" {
		return echo.NewHTTPError(http.StatusNotFound, "This setup link was used already, or belongs to another start of Hopwise: sign in instead, "+
			"or restart Hopwise with HOPWISE_ADMIN_USER set to get a new link in its log.")
	}
	return render(c, http.StatusOK, web.SetupView(web.SetupPage{Meta: meta(c, "Set up", ""), Token: token, Name: s.Auth.SetupName(token)}))
}

func (s *server) setupSubmit(c echo.Context) error {
	token := c.FormValue("token")
	if s.Auth == nil || s.Auth.SetupName(token) == "" {
		return s.setupPage(c)
	}
	page := web.SetupPage{Meta: meta(c, "Set up", ""), Token: token, Name: s.Auth.SetupName(token)}
	if c.FormValue("new") != c.FormValue("confirm") {
		page.Error = "The two passwords differ."
		return render(c, http.StatusBadRequest, web.SetupView(page))
	}
	_, secret, err := s.Auth.CompleteSetup(c.Request().Context(), token, c.FormValue("new"), c.RealIP())
	if auth.IsInvalid(err) {
		page.Error = auth.Problem(err)
		return render(c, http.StatusBadRequest, web.SetupView(page))
	}
	if err != nil {
		return err
	}
	s.startBrowserSession(c, secret)
	return redirect(c, "/admin")
}

// safeNext is where a sign-in may lead: a path of this server, never another site ("//evil", "/\evil").
func safeNext(next string) string {
	u, err := url.Parse(next)
	if err != nil || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/login") {
		return "/"
	}
	return next
}

// retryAfter is the Retry-After of a refused sign-in, in seconds: until the oldest failure counted leaves
// the window (at most the window of 15 minutes).
func retryAfter(t *auth.ThrottledError) string {
	return strconv.Itoa(min(max(1, int(time.Until(t.Until).Seconds())+1), 900))
}
