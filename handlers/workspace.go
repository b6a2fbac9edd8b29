package handlers

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// Workspaces: every request that reads or changes documents, passages, the graph, conversations or jobs acts
// in one workspace, chosen by access (chooseWorkspace) from the X-Hopwise-Workspace header, the workspace
// cookie the page header's switch sets, a token's own workspace, or else the default workspace (or the
// first the principal is a member of). Its handler then runs on a view of the server whose Store, Ingester,
// Chat, Retriever, Reindex, Summaries and Status are that workspace's (in): no handler names a workspace,
// so none can forget it, and an ID of another workspace's document, passage, entity or conversation is as
// unknown as one that never existed.

// Workspace is what the handlers use of one workspace: its store and the parts that read and fill it.
type Workspace struct {
	Store     Store
	Ingester  Ingester
	Chat      Asker
	Retriever apiv1.Retriever
	Reindex   Reindexer
	Summaries Summaries
	Status    StatusFunc
}

const (
	// workspaceHeader names the workspace a program's request acts in.
	workspaceHeader = "X-Hopwise-Workspace"
	// workspaceCookie is the workspace a browser switched to.
	workspaceCookie  = "hopwise_workspace"
	workspaceKey     = "workspace"
	workspaceMenuKey = "workspaceMenu"
)

// workspaceOf is the workspace access chose for the request ("" none: a bare route, or nobody known).
func workspaceOf(c echo.Context) string {
	id, _ := c.Get(workspaceKey).(string)
	return id
}

// workspaceList is every workspace there is: the auth service's, or the default alone without one.
func (s *server) workspaceList(ctx context.Context) ([]auth.Workspace, error) {
	if s.Auth == nil {
		return []auth.Workspace{{ID: graphrag.DefaultWorkspace, Name: "Default"}}, nil
	}
	return s.Auth.Workspaces(ctx)
}

// chooseWorkspace is the workspace the request acts in, "" when p may enter none, and sets the page
// header's switch. A workspace named by the header (or a token's own) that p may not enter is refused with
// 403; a stale cookie is ignored.
func (s *server) chooseWorkspace(c echo.Context, p auth.Principal) (string, error) {
	all, err := s.workspaceList(c.Request().Context())
	if err != nil {
		return "", err
	}
	var menu []web.WorkspaceOption
	for _, w := range p.InWorkspaces(all) {
		menu = append(menu, web.WorkspaceOption{ID: w.ID, Name: w.Name})
	}
	c.Set(workspaceMenuKey, menu)
	exists := func(id string) bool {
		return slices.ContainsFunc(all, func(w auth.Workspace) bool { return w.ID == id })
	}
	asked := strings.TrimSpace(c.Request().Header.Get(workspaceHeader))
	explicit := asked != ""
	if tw := p.TokenWorkspace(); tw != "" && !explicit {
		asked, explicit = tw, true
	}
	if !explicit {
		if ck, err := c.Cookie(workspaceCookie); err == nil {
			asked = ck.Value
		}
	}
	if asked != "" {
		if exists(asked) && p.RoleIn(asked) != "" {
			return asked, nil
		}
		if explicit {
			return "", echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("You are not a member of a workspace %q: ask an admin to add you, "+
				"or name one of yours in the %s header.", asked, workspaceHeader))
		}
	}
	if p.RoleIn(graphrag.DefaultWorkspace) != "" {
		return graphrag.DefaultWorkspace, nil
	}
	if in := p.InWorkspaces(all); len(in) > 0 {
		return in[0].ID, nil
	}
	return "", nil
}

// in runs h on the view of the server for the request's workspace. Without Deps.Workspaces the server
// has one workspace, the default, and is its own view.
func (s *server) in(h func(*server, echo.Context) error) echo.HandlerFunc {
	return func(c echo.Context) error {
		v, err := s.view(c.Request().Context(), workspaceOf(c))
		if err != nil {
			return err
		}
		return h(v, c)
	}
}

// views caches each workspace's view of the server.
type views struct{ m sync.Map }

func (s *server) view(ctx context.Context, id string) (*server, error) {
	if s.Workspaces == nil {
		return s, nil
	}
	if id == "" {
		return nil, echo.NewHTTPError(http.StatusForbidden, "You are a member of no workspace yet: ask an admin to add you to one.")
	}
	if v, ok := s.views.m.Load(id); ok {
		return v.(*server), nil
	}
	w, err := s.Workspaces(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", id, err)
	}
	v := *s
	v.mcp = sync.OnceValue(v.newMCPHandler)
	v.Store, v.Ingester, v.Chat, v.Retriever, v.Reindex, v.Summaries = w.Store, w.Ingester, w.Chat, w.Retriever, w.Reindex, w.Summaries
	if w.Status != nil {
		v.Status = w.Status
	}
	actual, _ := s.views.m.LoadOrStore(id, &v)
	return actual.(*server), nil
}

// workspaceMenu is what the page header's switch offers: the workspaces the principal may enter.
func workspaceMenu(c echo.Context) []web.WorkspaceOption {
	m, _ := c.Get(workspaceMenuKey).([]web.WorkspaceOption)
	return m
}

// workspaceSwitch remembers the workspace the page header's switch chose, in a cookie, and goes to the
// chat page of it (the page shown before names things of the other workspace).
func (s *server) workspaceSwitch(c echo.Context) error {
	p, _ := principalOf(c)
	id := strings.TrimSpace(c.FormValue("workspace"))
	all, err := s.workspaceList(c.Request().Context())
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(all, func(w auth.Workspace) bool { return w.ID == id }) || p.RoleIn(id) == "" {
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("You are not a member of a workspace %q.", id))
	}
	c.SetCookie(&http.Cookie{Name: workspaceCookie, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.servedOverTLS(c), MaxAge: 365 * 24 * 3600})
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", "/")
		return c.NoContent(http.StatusNoContent)
	}
	return redirect(c, "/")
}
