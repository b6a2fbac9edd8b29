package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// settingsPage shows one's account: the password form and one's API tokens.
func (s *server) settingsPage(c echo.Context) error {
	p, err := s.settingsView(c, "", "")
	if err != nil {
		return err
	}
	switch c.QueryParam("done") {
	case "password":
		p.Notice = "Your password was changed. Other browsers signed in to your account were signed out."
	case "revoked":
		p.Notice = "The token was revoked: programs using it are refused from now on."
	case "others":
		p.Notice = "Every other browser signed in to your account was signed out."
	case "entity-types":
		p.Notice = "The entity types were saved: documents read from now on are extracted with them."
	}
	return render(c, http.StatusOK, web.SettingsView(p))
}

func (s *server) settingsView(c echo.Context, notice, problem string) (web.SettingsPage, error) {
	pr, _ := principalOf(c)
	p := web.SettingsPage{Meta: meta(c, "Settings", web.NavSettings), Local: pr.Local || s.Auth == nil,
		Name: pr.Name(), Role: string(pr.Role), Notice: notice, Error: problem}
	if p.Local {
		return p, nil
	}
	for _, r := range auth.Roles {
		if pr.Role.Allows(r) {
			p.Roles = append(p.Roles, string(r))
		}
	}
	tokens, err := s.Auth.Tokens(c.Request().Context(), pr, false)
	if err != nil {
		return p, err
	}
	p.Tokens = tokenRows(tokens, nil)
	p.Workspaces = workspaceMenu(c)
	if ws := workspaceOf(c); ws != "" && pr.RoleIn(ws).Allows(auth.Admin) {
		w, err := s.Auth.Workspace(c.Request().Context(), ws)
		if err != nil {
			return p, err
		}
		defaults := s.EntityTypes
		if len(defaults) == 0 {
			defaults = graphrag.DefaultEntityTypes
		}
		p.EntityTypes = &web.EntityTypesSetting{Workspace: w.Name, Types: w.EntityTypes, Defaults: strings.Join(defaults, ", ")}
	}
	return p, nil
}

// entityTypesSet sets the entity types of the workspace the request acts in (its admins'); an empty list
// goes back to the server's.
func (s *server) entityTypesSet(c echo.Context) error {
	pr, _ := principalOf(c)
	if s.Auth == nil || pr.Local {
		return echo.NewHTTPError(http.StatusNotFound, "Workspace settings need accounts: create the first admin on the Admin page.")
	}
	list := strings.TrimSpace(c.FormValue("types"))
	var types []string
	var err error
	if list != "" {
		types, err = graphrag.ParseEntityTypes(list)
	}
	if err == nil {
		err = s.Auth.SetEntityTypes(c.Request().Context(), pr, workspaceOf(c), strings.Join(types, ", "))
	}
	if err != nil && !errors.Is(err, auth.ErrForbidden) && !errors.Is(err, auth.ErrNotFound) {
		p, verr := s.settingsView(c, "", "The entity types were not saved: "+err.Error())
		if verr != nil {
			return verr
		}
		return render(c, http.StatusBadRequest, web.SettingsView(p))
	}
	if errors.Is(err, auth.ErrForbidden) {
		return echo.NewHTTPError(http.StatusForbidden, "Only an admin of this workspace sets its entity types.")
	}
	if err != nil {
		return err
	}
	return redirect(c, "/settings?done=entity-types")
}

func tokenRows(tokens []auth.Token, owners map[string]string) []web.TokenRow {
	out := make([]web.TokenRow, len(tokens))
	for i, t := range tokens {
		used := "never"
		if !t.UsedAt.IsZero() {
			used = web.When(t.UsedAt)
		}
		out[i] = web.TokenRow{ID: t.ID, Name: t.Name, Role: string(t.Role), Owner: owners[t.AccountID], Workspace: t.Workspace,
			Created: web.When(t.CreatedAt), Used: used, Revoked: t.Revoked()}
	}
	return out
}

func (s *server) passwordChange(c echo.Context) error {
	pr, _ := principalOf(c)
	if s.Auth == nil || pr.Local {
		return redirect(c, "/settings")
	}
	fail := func(status int, problem string) error {
		p, err := s.settingsView(c, "", problem)
		if err != nil {
			return err
		}
		return render(c, status, web.SettingsView(p))
	}
	if c.FormValue("new") != c.FormValue("confirm") {
		return fail(http.StatusBadRequest, "The two new passwords differ.")
	}
	secret, err := s.Auth.ChangePassword(c.Request().Context(), pr, c.FormValue("current"), c.FormValue("new"), c.RealIP())
	if auth.IsInvalid(err) {
		return fail(http.StatusBadRequest, auth.Problem(err))
	}
	if err != nil {
		return err
	}
	s.startBrowserSession(c, secret)
	return redirect(c, "/settings?done=password")
}

// tokenCreate makes a token and shows it in the answer, the only time it is shown (no redirect, so it is
// not in any address or history entry).
func (s *server) tokenCreate(c echo.Context) error {
	pr, _ := principalOf(c)
	if s.Auth == nil || pr.Local {
		return redirect(c, "/settings")
	}
	role, err := auth.ParseRole(c.FormValue("role"))
	var t auth.Token
	var token string
	if err == nil {
		t, token, err = s.Auth.CreateWorkspaceToken(c.Request().Context(), pr, c.FormValue("name"), role, c.FormValue("workspace"))
	}
	if auth.IsInvalid(err) {
		p, verr := s.settingsView(c, "", auth.Problem(err))
		if verr != nil {
			return verr
		}
		return render(c, http.StatusBadRequest, web.SettingsView(p))
	}
	if err != nil {
		return err
	}
	p, err := s.settingsView(c, "", "")
	if err != nil {
		return err
	}
	p.NewToken, p.NewTokenName = token, t.Name
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return render(c, http.StatusOK, web.SettingsView(p))
}

func (s *server) tokenRevoke(c echo.Context) error {
	pr, _ := principalOf(c)
	if s.Auth == nil || pr.Local {
		return redirect(c, "/settings")
	}
	if err := s.Auth.RevokeToken(c.Request().Context(), pr, c.Param("id")); err != nil {
		return err
	}
	return redirect(c, "/settings?done=revoked")
}

// sessionsEnd signs the account out of every other browser.
func (s *server) sessionsEnd(c echo.Context) error {
	pr, _ := principalOf(c)
	if s.Auth == nil || pr.Local {
		return redirect(c, "/settings")
	}
	secret, err := s.Auth.EndOtherSessions(c.Request().Context(), pr, c.RealIP())
	if err != nil {
		return err
	}
	s.startBrowserSession(c, secret)
	return redirect(c, "/settings?done=others")
}
