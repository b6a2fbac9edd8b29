package handlers

import (
	"net/http"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// auditShown is how many events of the audit log the admin page lists.
const auditShown = 200

// adminPage lists the accounts, every token and the latest audit events.
func (s *server) adminPage(c echo.Context) error {
	notice := ""
	switch c.QueryParam("done") {
	case "created":
		notice = "The account was created."
	case "changed":
		notice = "The account was changed."
	case "password":
		notice = "The password was set, and the account's browsers were signed out: give the person the new password."
	case "revoked":
		notice = "The token was revoked."
	}
	p, err := s.adminView(c, notice, "")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, web.AdminView(p))
}

func (s *server) adminView(c echo.Context, notice, problem string) (web.AdminPage, error) {
	ctx := c.Request().Context()
	pr, _ := principalOf(c)
	p := web.AdminPage{Meta: meta(c, "Admin", web.NavAdmin), Notice: notice, Error: problem}
	for _, r := range auth.Roles {
		p.Roles = append(p.Roles, string(r))
	}
	if s.Auth == nil {
		p.Local, p.Error = true, "Accounts are not available in this process."
		return p, nil
	}
	accounts, err := s.Auth.Accounts(ctx)
	if err != nil {
		return p, err
	}
	p.Local = len(accounts) == 0
	owners := map[string]string{}
	for _, a := range accounts {
		owners[a.ID] = a.Name
		p.Users = append(p.Users, web.UserRow{ID: a.ID, Name: a.Name, Role: string(a.Role), Created: web.When(a.CreatedAt),
			Disabled: a.Disabled, Self: a.ID == pr.Account.ID})
	}
	if p.Local {
		return p, nil
	}
	tokens, err := s.Auth.Tokens(ctx, pr, true)
	if err != nil {
		return p, err
	}
	p.Tokens = tokenRows(tokens, owners)
	events, err := s.Auth.Audit(ctx, auditShown)
	if err != nil {
		return p, err
	}
	for _, e := range events {
		p.Audit = append(p.Audit, web.AuditRow{When: web.When(e.At), Actor: e.Actor, Action: e.Action, Target: e.Target, Client: e.Client, Detail: e.Detail})
	}
	return p, nil
}

// adminDone answers an admin form: back to the page after a change, the page with the problem otherwise.
func (s *server) adminDone(c echo.Context, err error, done string) error {
	if auth.IsInvalid(err) {
		p, verr := s.adminView(c, "", auth.Problem(err))
		if verr != nil {
			return verr
		}
		return render(c, http.StatusBadRequest, web.AdminView(p))
	}
	if err != nil {
		return err
	}
	return redirect(c, "/admin?done="+done)
}

// userCreate adds an account. On a laptop install without accounts the first one (an admin) turns
// sign-in on, so the person who made it is sent to sign in with it.
func (s *server) userCreate(c echo.Context) error {
	if s.Auth == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Accounts are not available in this process.")
	}
	pr, _ := principalOf(c)
	role, err := auth.ParseRole(c.FormValue("role"))
	if err == nil {
		_, err = s.Auth.CreateAccount(c.Request().Context(), pr, c.FormValue("name"), c.FormValue("password"), role)
	}
	if err == nil && pr.Local {
		return redirect(c, "/login?next=%2Fadmin")
	}
	return s.adminDone(c, err, "created")
}

func (s *server) userRole(c echo.Context) error {
	pr, _ := principalOf(c)
	role, err := auth.ParseRole(c.FormValue("role"))
	if err == nil && s.Auth != nil {
		err = s.Auth.SetRole(c.Request().Context(), pr, c.Param("id"), role)
	}
	return s.adminDone(c, err, "changed")
}

func (s *server) userDisabled(c echo.Context) error {
	pr, _ := principalOf(c)
	var err error
	if s.Auth != nil {
		err = s.Auth.SetDisabled(c.Request().Context(), pr, c.Param("id"), c.FormValue("disabled") == "yes")
	}
	return s.adminDone(c, err, "changed")
}

// userPassword sets the password of another account, whose sessions end.
func (s *server) userPassword(c echo.Context) error {
	pr, _ := principalOf(c)
	var err error
	if s.Auth != nil {
		err = s.Auth.SetPassword(c.Request().Context(), pr, c.Param("id"), c.FormValue("password"))
	}
	return s.adminDone(c, err, "password")
}

func (s *server) adminTokenRevoke(c echo.Context) error {
	pr, _ := principalOf(c)
	var err error
	if s.Auth != nil {
		err = s.Auth.RevokeToken(c.Request().Context(), pr, c.Param("id"))
	}
	return s.adminDone(c, err, "revoked")
}
