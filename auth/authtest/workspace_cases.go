package authtest

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/auth"
)

func workspaceIDs(ws []auth.Workspace) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

// testWorkspaces: a new store has the default workspace; workspaces and memberships round trip.
func testWorkspaces(t *testing.T, ctx context.Context, s auth.Store) {
	list, err := s.Workspaces(ctx)
	if err != nil || !slices.Equal(workspaceIDs(list), []string{auth.DefaultWorkspace}) {
		t.Fatalf("Workspaces of a new store = %v, %v; want the default alone", workspaceIDs(list), err)
	}
	hr := auth.Workspace{ID: "hr", Name: "Human resources", CreatedAt: at(0)}
	for _, w := range []auth.Workspace{hr, {ID: "chunk_text", Name: "entity_names", CreatedAt: at(0)}} {
		if err := s.PutWorkspace(ctx, w); err != nil {
			t.Fatalf("PutWorkspace(%s): %v", w.ID, err)
		}
	}
	hr.Name = "People"
	if err := s.PutWorkspace(ctx, hr); err != nil {
		t.Fatal(err)
	}
	list, err = s.Workspaces(ctx)
	if err != nil || !slices.Equal(workspaceIDs(list), []string{"chunk_text", auth.DefaultWorkspace, "hr"}) {
		t.Fatalf("Workspaces = %v, %v; want chunk_text, default, hr (by ID)", workspaceIDs(list), err)
	}
	if list[2] != hr || list[0].Name != "entity_names" {
		t.Errorf("Workspaces = %+v; want hr renamed to People and names kept as given", list)
	}
	putAccounts(t, ctx, s, "a1", "a2")
	for _, m := range []auth.Membership{
		{AccountID: "a1", Workspace: auth.DefaultWorkspace},
		{AccountID: "a1", Workspace: "hr", Role: auth.Reader},
		{AccountID: "a2", Workspace: "hr", Role: auth.Editor},
		{AccountID: "a1", Workspace: "hr", Role: auth.Admin}, // changes a1's role in hr
	} {
		if err := s.PutMembership(ctx, m); err != nil {
			t.Fatalf("PutMembership(%+v): %v", m, err)
		}
	}
	got, err := s.Memberships(ctx, "a1")
	want := []auth.Membership{{AccountID: "a1", Workspace: auth.DefaultWorkspace}, {AccountID: "a1", Workspace: "hr", Role: auth.Admin}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Memberships(a1) = %+v, %v; want %+v", got, err, want)
	}
	if err := s.DeleteMembership(ctx, "a1", "hr"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMembership(ctx, "a1", "hr"); err != nil {
		t.Errorf("DeleteMembership of one gone: %v", err)
	}
	got, err = s.Memberships(ctx, "")
	want = []auth.Membership{{AccountID: "a1", Workspace: auth.DefaultWorkspace}, {AccountID: "a2", Workspace: "hr", Role: auth.Editor}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Memberships(all) = %+v, %v; want %+v", got, err, want)
	}
}

// testWorkspaceRoles: an account acts in the workspaces it is a member of, with the role there; an admin in
// all; a token within its role and workspace.
func testWorkspaceRoles(t *testing.T, f *serviceFixture) {
	if _, err := f.svc.CreateWorkspace(f.ctx, f.admin, "hr", "Human resources"); err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	if _, err := f.svc.CreateWorkspace(f.ctx, f.admin, "hr", "again"); !errors.Is(err, auth.ErrInvalid) {
		t.Errorf("CreateWorkspace of a taken ID: error %v, want ErrInvalid", err)
	}
	for _, bad := range []string{"HR", "h r", "", "../x", "a-b"} {
		if _, err := f.svc.CreateWorkspace(f.ctx, f.admin, bad, "x"); !errors.Is(err, auth.ErrInvalid) {
			t.Errorf("CreateWorkspace(%q): error %v, want ErrInvalid", bad, err)
		}
	}
	bo := f.account("bo", auth.Editor)
	cy := f.account("cy", auth.Reader)
	if _, err := f.svc.CreateWorkspace(f.ctx, f.principal(cy.Name), "ops", "Ops"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("CreateWorkspace by a reader: error %v, want ErrForbidden", err)
	}
	if err := f.svc.SetMembership(f.ctx, f.admin, cy.ID, "hr", auth.Editor, false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetMembership(f.ctx, f.principal(bo.Name), cy.ID, auth.DefaultWorkspace, "", true); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("SetMembership by an editor: error %v, want ErrForbidden", err)
	}
	if err := f.svc.SetMembership(f.ctx, f.admin, cy.ID, "nowhere", auth.Editor, false); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("SetMembership in an unknown workspace: error %v, want ErrNotFound", err)
	}
	roles := func(p auth.Principal) [2]auth.Role {
		return [2]auth.Role{p.RoleIn(auth.DefaultWorkspace), p.RoleIn("hr")}
	}
	if got := roles(f.principal(bo.Name)); got != [2]auth.Role{auth.Editor, ""} {
		t.Errorf("bo (editor, default only) acts as %v, want editor in default and nothing in hr", got)
	}
	if got := roles(f.principal(cy.Name)); got != [2]auth.Role{auth.Reader, auth.Editor} {
		t.Errorf("cy (reader, editor in hr) acts as %v, want reader and editor", got)
	}
	if got := roles(f.admin); got != [2]auth.Role{auth.Admin, auth.Admin} {
		t.Errorf("the admin acts as %v, want admin in both", got)
	}
	if got := f.admin.RoleIn("nowhere"); got != auth.Admin {
		t.Errorf("the admin in a workspace not yet listed acts as %q, want admin (the workspace check is the caller's)", got)
	}
	// Removing cy from default leaves hr.
	if err := f.svc.SetMembership(f.ctx, f.admin, cy.ID, auth.DefaultWorkspace, "", true); err != nil {
		t.Fatal(err)
	}
	if got := roles(f.principal(cy.Name)); got != [2]auth.Role{"", auth.Editor} {
		t.Errorf("cy after leaving default acts as %v, want nothing there and editor in hr", got)
	}
	if ws := f.principal(cy.Name).InWorkspaces([]auth.Workspace{{ID: auth.DefaultWorkspace}, {ID: "hr"}}); len(ws) != 1 || ws[0].ID != "hr" {
		t.Errorf("cy's workspaces = %+v, want hr alone", ws)
	}
	// A token limited to hr acts in hr alone, within its role.
	cyP := f.principal(cy.Name)
	if _, _, err := f.svc.CreateWorkspaceToken(f.ctx, cyP, "default script", auth.Reader, auth.DefaultWorkspace); !errors.Is(err, auth.ErrInvalid) {
		t.Errorf("a token for a workspace cy is no member of: error %v, want ErrInvalid", err)
	}
	_, secret, err := f.svc.CreateWorkspaceToken(f.ctx, cyP, "hr script", auth.Reader, "hr")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := f.svc.TokenPrincipal(f.ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	if got := roles(tp); got != [2]auth.Role{"", auth.Reader} || tp.TokenWorkspace() != "hr" {
		t.Errorf("cy's hr reader token acts as %v (workspace %q), want reader in hr alone", got, tp.TokenWorkspace())
	}
	_, secret, err = f.svc.CreateToken(f.ctx, f.principal(bo.Name), "bo everywhere", auth.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if tp, err := f.svc.TokenPrincipal(f.ctx, secret); err != nil || roles(tp) != [2]auth.Role{auth.Reader, ""} {
		t.Errorf("bo's reader token for every workspace acts as %v, %v; want reader in default alone (bo's only)", roles(tp), err)
	}
}

// principal signs name in again (its password is the one account gave it) and returns who its session is.
func (f *serviceFixture) principal(name string) auth.Principal {
	f.t.Helper()
	_, secret := f.login(name, "a password of "+name+"!", "192.0.2.9")
	p, err := f.svc.SessionPrincipal(f.ctx, secret)
	if err != nil {
		f.t.Fatalf("SessionPrincipal(%s): %v", name, err)
	}
	return p
}
