package authtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

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

// testWorkspaceEntityTypes: a workspace's entity types are kept with it, replaced by the next PutWorkspace,
// and its creation time stays.
func testWorkspaceEntityTypes(t *testing.T, ctx context.Context, s auth.Store) {
	hr := auth.Workspace{ID: "hr", Name: "Human resources", EntityTypes: "person, salary_band", CreatedAt: at(0)}
	if err := s.PutWorkspace(ctx, hr); err != nil {
		t.Fatal(err)
	}
	if err := s.PutWorkspace(ctx, auth.Workspace{ID: "ops", Name: "Ops", CreatedAt: at(0)}); err != nil {
		t.Fatal(err)
	}
	find := func(id string) auth.Workspace {
		t.Helper()
		list, err := s.Workspaces(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range list {
			if w.ID == id {
				return w
			}
		}
		t.Fatalf("no workspace %s in %v", id, workspaceIDs(list))
		return auth.Workspace{}
	}
	if got := find("hr"); got != hr {
		t.Errorf("hr = %+v, want %+v", got, hr)
	}
	if got := find("ops").EntityTypes; got != "" {
		t.Errorf("ops names entity types %q, want none", got)
	}
	changed := hr
	changed.EntityTypes, changed.CreatedAt = "airline, airport", at(time.Hour)
	if err := s.PutWorkspace(ctx, changed); err != nil {
		t.Fatal(err)
	}
	want := hr
	want.EntityTypes = "airline, airport"
	if got := find("hr"); got != want {
		t.Errorf("hr after a change = %+v, want %+v (types replaced, creation time kept)", got, want)
	}
	if got := find(auth.DefaultWorkspace).EntityTypes; got != "" {
		t.Errorf("the default workspace names entity types %q, want none", got)
	}
}

// testDeleteWorkspace: DeleteWorkspace removes the workspace, every membership in it and the tokens
// limited to it, and nothing of another workspace or the tokens of every workspace.
func testDeleteWorkspace(t *testing.T, ctx context.Context, s auth.Store) {
	for _, w := range []auth.Workspace{{ID: "hr", Name: "HR", CreatedAt: at(0)}, {ID: "hr2", Name: "HR 2", CreatedAt: at(0)}} {
		if err := s.PutWorkspace(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	putAccounts(t, ctx, s, "a1", "a2")
	for _, m := range []auth.Membership{{AccountID: "a1", Workspace: "hr"}, {AccountID: "a2", Workspace: "hr", Role: auth.Reader},
		{AccountID: "a1", Workspace: "hr2"}, {AccountID: "a2", Workspace: auth.DefaultWorkspace}} {
		if err := s.PutMembership(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tk := range []auth.Token{
		{ID: "t-hr", AccountID: "a1", Name: "hr", Hash: "h1", Role: auth.Reader, Workspace: "hr", CreatedAt: at(0)},
		{ID: "t-hr2", AccountID: "a1", Name: "hr2", Hash: "h2", Role: auth.Reader, Workspace: "hr2", CreatedAt: at(time.Second)},
		{ID: "t-all", AccountID: "a2", Name: "all", Hash: "h3", Role: auth.Reader, CreatedAt: at(2 * time.Second)},
	} {
		if err := s.PutToken(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteWorkspace(ctx, "hr"); err != nil {
		t.Fatalf("DeleteWorkspace(hr): %v", err)
	}
	if err := s.DeleteWorkspace(ctx, "hr"); err != nil {
		t.Errorf("DeleteWorkspace of one gone: %v", err)
	}
	list, err := s.Workspaces(ctx)
	if err != nil || !slices.Equal(workspaceIDs(list), []string{auth.DefaultWorkspace, "hr2"}) {
		t.Errorf("Workspaces after deleting hr = %v, %v; want default, hr2", workspaceIDs(list), err)
	}
	ms, err := s.Memberships(ctx, "")
	want := []auth.Membership{{AccountID: "a2", Workspace: auth.DefaultWorkspace}, {AccountID: "a1", Workspace: "hr2"}}
	if err != nil || !slices.Equal(ms, want) {
		t.Errorf("Memberships after deleting hr = %+v, %v; want %+v", ms, err, want)
	}
	tokens, err := s.Tokens(ctx, "")
	var ids []string
	for _, tk := range tokens {
		ids = append(ids, tk.ID)
	}
	if err != nil || !slices.Equal(ids, []string{"t-all", "t-hr2"}) {
		t.Errorf("Tokens after deleting hr = %v, %v; want t-all, t-hr2", ids, err)
	}
	if _, err := s.Token(ctx, "t-hr"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("Token(t-hr) after deleting hr: %v, want ErrNotFound", err)
	}
}

// testSetEntityTypes: an admin of a workspace (by membership, or an admin account) sets its entity types,
// which EntityTypeSource then gives its extraction; an editor cannot; the change is in the audit log with
// the workspace.
func testSetEntityTypes(t *testing.T, f *serviceFixture) {
	if _, err := f.svc.CreateWorkspace(f.ctx, f.admin, "hr", "HR"); err != nil {
		t.Fatal(err)
	}
	bo := f.account("bo", auth.Editor)
	if err := f.svc.SetMembership(f.ctx, f.admin, bo.ID, "hr", auth.Admin, false); err != nil {
		t.Fatal(err)
	}
	boP := f.principal(bo.Name)
	if err := f.svc.SetEntityTypes(f.ctx, boP, auth.DefaultWorkspace, "person"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("SetEntityTypes by an editor of default: %v, want ErrForbidden", err)
	}
	f.clock.Advance(time.Second) // the audit event of the change is the latest by time in every store
	if err := f.svc.SetEntityTypes(f.ctx, boP, "hr", "person, salary_band"); err != nil {
		t.Fatalf("SetEntityTypes by hr's admin: %v", err)
	}
	if got, err := auth.EntityTypeSource(f.store, "hr")(f.ctx); err != nil || !slices.Equal(got, []string{"person", "salary_band"}) {
		t.Errorf("hr's entity types = %v, %v; want person, salary_band", got, err)
	}
	if got, err := auth.EntityTypeSource(f.store, auth.DefaultWorkspace)(f.ctx); err != nil || got != nil {
		t.Errorf("default's entity types = %v, %v; want none (the server's)", got, err)
	}
	events, err := f.svc.Audit(f.ctx, 1)
	if err != nil || len(events) != 1 || events[0].Action != "entity types set" || events[0].Workspace != "hr" {
		t.Errorf("latest audit event = %+v, %v; want entity types set in hr", events, err)
	}
}

// testServiceDeleteWorkspace: only an admin deletes a workspace, never the default, only with its ID typed
// again; the graph store's part runs first and its failure keeps the workspace; the audit log names it.
func testServiceDeleteWorkspace(t *testing.T, f *serviceFixture) {
	if _, err := f.svc.CreateWorkspace(f.ctx, f.admin, "hr", "HR"); err != nil {
		t.Fatal(err)
	}
	bo := f.account("bo", auth.Editor)
	if err := f.svc.SetMembership(f.ctx, f.admin, bo.ID, "hr", auth.Admin, false); err != nil {
		t.Fatal(err)
	}
	dropped := 0
	drop := func(context.Context) error { dropped++; return nil }
	if err := f.svc.DeleteWorkspace(f.ctx, f.principal(bo.Name), "hr", "hr", drop); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("DeleteWorkspace by an editor who is admin of hr alone: %v, want ErrForbidden", err)
	}
	if err := f.svc.DeleteWorkspace(f.ctx, f.admin, auth.DefaultWorkspace, auth.DefaultWorkspace, drop); !errors.Is(err, auth.ErrInvalid) {
		t.Errorf("DeleteWorkspace(default): %v, want ErrInvalid", err)
	}
	for _, confirm := range []string{"", "HR", "yes"} {
		if err := f.svc.DeleteWorkspace(f.ctx, f.admin, "hr", confirm, drop); !errors.Is(err, auth.ErrInvalid) {
			t.Errorf("DeleteWorkspace(hr) confirmed with %q: %v, want ErrInvalid", confirm, err)
		}
	}
	if err := f.svc.DeleteWorkspace(f.ctx, f.admin, "nowhere", "nowhere", drop); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("DeleteWorkspace(nowhere): %v, want ErrNotFound", err)
	}
	failed := errors.New("disk gone")
	if err := f.svc.DeleteWorkspace(f.ctx, f.admin, "hr", "hr", func(context.Context) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("DeleteWorkspace whose documents could not be removed: %v, want that failure", err)
	}
	if _, err := f.svc.Workspace(f.ctx, "hr"); err != nil {
		t.Errorf("hr after a failed deletion: %v, want it still there", err)
	}
	if dropped != 0 {
		t.Errorf("the documents were removed %d times by refused deletions", dropped)
	}
	f.clock.Advance(time.Second)
	if err := f.svc.DeleteWorkspace(f.ctx, f.admin, "hr", " hr ", drop); err != nil || dropped != 1 {
		t.Fatalf("DeleteWorkspace(hr): %v, documents removed %d times; want once", err, dropped)
	}
	if _, err := f.svc.Workspace(f.ctx, "hr"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("hr after its deletion: %v, want ErrNotFound", err)
	}
	events, err := f.svc.Audit(f.ctx, 1)
	if err != nil || len(events) != 1 || events[0].Action != "workspace deleted" || events[0].Workspace != "hr" || events[0].Actor != f.admin.Name() {
		t.Errorf("latest audit event = %+v, %v; want the admin's workspace deleted, in hr", events, err)
	}
	if got := f.principal(bo.Name).RoleIn("hr"); got != "" {
		t.Errorf("bo acts in the deleted hr as %q, want not at all", got)
	}
}
