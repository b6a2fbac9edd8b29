package handlers

import (
	"context"
	"errors"
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
	case "workspace":
		notice = "The workspace was created: add its members below."
	case "membership":
		notice = "The membership was changed."
	case "deleted":
		notice = "The workspace was deleted with everything in it."
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
		p.Audit = append(p.Audit, web.AuditRow{When: web.When(e.At), Actor: e.Actor, Action: e.Action, Target: e.Target, Client: e.Client,
			Detail: e.Detail, Workspace: e.Workspace})
	}
	p.Workspaces, err = s.workspaceRows(c, pr, owners)
	return p, err
}

// workspaceRows lists every workspace with its members by name.
func (s *server) workspaceRows(c echo.Context, pr auth.Principal, names map[string]string) ([]web.WorkspaceRow, error) {
	ctx := c.Request().Context()
	all, err := s.Auth.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.Auth.Memberships(ctx, pr, "")
	if err != nil {
		return nil, err
	}
	rows := make([]web.WorkspaceRow, len(all))
	for i, w := range all {
		rows[i] = web.WorkspaceRow{ID: w.ID, Name: w.Name}
		for _, m := range ms {
			if m.Workspace == w.ID {
				rows[i].Members = append(rows[i].Members, web.MemberRow{AccountID: m.AccountID, Name: names[m.AccountID], Role: string(m.Role)})
			}
		}
	}
	return rows, nil
}

// workspaceCreate adds a workspace.
func (s *server) workspaceCreate(c echo.Context) error {
	if s.Auth == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Accounts are not available in this process.")
	}
	pr, _ := principalOf(c)
	_, err := s.Auth.CreateWorkspace(c.Request().Context(), pr, c.FormValue("id"), c.FormValue("name"))
	return s.adminDone(c, err, "workspace")
}

// membershipSet adds an account to a workspace, changes its role there (role "" its own), or with
// remove=yes ends its membership.
func (s *server) membershipSet(c echo.Context) error {
	if s.Auth == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Accounts are not available in this process.")
	}
	pr, _ := principalOf(c)
	var role auth.Role
	var err error
	if r := c.FormValue("role"); r != "" {
		role, err = auth.ParseRole(r)
	}
	if err == nil {
		err = s.Auth.SetMembership(c.Request().Context(), pr, c.FormValue("account"), c.Param("id"), role, c.FormValue("remove") == "yes")
	}
	if errors.Is(err, auth.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No such account or workspace.")
	}
	return s.adminDone(c, err, "membership")
}

// workspaceDelete deletes a workspace with everything in it, once the admin typed its ID again.
func (s *server) workspaceDelete(c echo.Context) error {
	err := s.deleteWorkspace(c, c.Param("id"), c.FormValue("confirm"))
	if errors.Is(err, auth.ErrNotFound) {
		return echo.NewHTTPError(http.StatusNotFound, "No such workspace.")
	}
	return s.adminDone(c, err, "deleted")
}

// apiWorkspaceDelete is workspaceDelete for programs: DELETE /api/v1/workspaces/:id?confirm=:id.
func (s *server) apiWorkspaceDelete(c echo.Context) error {
	err := s.deleteWorkspace(c, c.Param("id"), c.QueryParam("confirm"))
	switch {
	case errors.Is(err, auth.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, "No such workspace.")
	case auth.IsInvalid(err):
		return echo.NewHTTPError(http.StatusBadRequest, auth.Problem(err))
	case errors.Is(err, auth.ErrForbidden):
		return echo.NewHTTPError(http.StatusForbidden, "Only an admin deletes workspaces.")
	case err != nil:
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// deleteWorkspace deletes workspace id (auth.Service.DeleteWorkspace): what runs in it stops and its
// documents go (Deps.DropWorkspace), then its record, memberships and tokens; its view of the server is
// forgotten.
func (s *server) deleteWorkspace(c echo.Context, id, confirm string) error {
	if s.Auth == nil {
		return echo.NewHTTPError(http.StatusNotFound, "Accounts are not available in this process.")
	}
	pr, _ := principalOf(c)
	return s.Auth.DeleteWorkspace(c.Request().Context(), pr, id, confirm, func(ctx context.Context) error {
		if s.DropWorkspace == nil {
			return errors.New("this server cannot delete a workspace's documents")
		}
		s.views.m.Delete(id)
		err := s.DropWorkspace(ctx, id)
		s.views.m.Delete(id)
		return err
	})
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
