// Package authtest is the contract suite of auth.Store: the SQLite store and the Neo4j store run the same
// tests, so the auth package can rely on one behaviour.
package authtest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/auth"
)

// Run runs every contract test, each on a new empty store from newStore.
func Run(t *testing.T, newStore func(t *testing.T) auth.Store) {
	cases := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, s auth.Store)
	}{
		{"accounts round trip and names are unique", testAccounts},
		{"sessions round trip, touch, delete and purge", testSessions},
		{"tokens round trip and a revocation sticks", testTokens},
		{"audit log newest first", testAudit},
		{"workspaces and memberships round trip", testWorkspaces},
		{"a workspace's entity types round trip", testWorkspaceEntityTypes},
		{"deleting a workspace removes its memberships and tokens alone", testDeleteWorkspace},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, t.Context(), newStore(t)) })
	}
}

// at is a fixed instant plus d, at the second (both stores keep at least that).
func at(d time.Duration) time.Time {
	return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC).Add(d)
}

func testAccounts(t *testing.T, ctx context.Context, s auth.Store) {
	if list, err := s.Accounts(ctx); err != nil || len(list) != 0 {
		t.Fatalf("Accounts of a new store = %v, %v; want none", list, err)
	}
	ana := auth.Account{ID: "a1", Name: "ana", PasswordHash: "$argon2id$x", Role: auth.Admin, CreatedAt: at(0), UpdatedAt: at(0)}
	bo := auth.Account{ID: "a2", Name: "bo", PasswordHash: "$argon2id$y", Role: auth.Reader, CreatedAt: at(time.Second), UpdatedAt: at(time.Second)}
	for _, a := range []auth.Account{bo, ana} {
		if err := s.PutAccount(ctx, a); err != nil {
			t.Fatalf("PutAccount(%s): %v", a.Name, err)
		}
	}
	if err := s.PutAccount(ctx, auth.Account{ID: "a3", Name: "ana", PasswordHash: "h", Role: auth.Reader, CreatedAt: at(0), UpdatedAt: at(0)}); !errors.Is(err, auth.ErrNameTaken) {
		t.Errorf("PutAccount of a second ana = %v, want ErrNameTaken", err)
	}
	got, err := s.AccountNamed(ctx, "ana")
	if err != nil || got != ana {
		t.Errorf("AccountNamed(ana) = %+v, %v; want %+v", got, err, ana)
	}
	bo.Role, bo.Disabled, bo.PasswordHash, bo.UpdatedAt = auth.Editor, true, "$argon2id$z", at(time.Hour)
	if err := s.PutAccount(ctx, bo); err != nil {
		t.Fatalf("PutAccount(bo changed): %v", err)
	}
	if got, err := s.Account(ctx, "a2"); err != nil || got != bo {
		t.Errorf("Account(a2) = %+v, %v; want %+v", got, err, bo)
	}
	list, err := s.Accounts(ctx)
	if err != nil || len(list) != 2 || list[0] != ana || list[1] != bo {
		t.Errorf("Accounts = %+v, %v; want ana then bo", list, err)
	}
	if _, err := s.Account(ctx, "nobody"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("Account(nobody) = %v, want ErrNotFound", err)
	}
	if _, err := s.AccountNamed(ctx, "nobody"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("AccountNamed(nobody) = %v, want ErrNotFound", err)
	}
}

func putAccounts(t *testing.T, ctx context.Context, s auth.Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := s.PutAccount(ctx, auth.Account{ID: id, Name: "user-" + id, PasswordHash: "h", Role: auth.Editor, CreatedAt: at(0), UpdatedAt: at(0)}); err != nil {
			t.Fatalf("PutAccount(%s): %v", id, err)
		}
	}
}

func testSessions(t *testing.T, ctx context.Context, s auth.Store) {
	putAccounts(t, ctx, s, "a1", "a2")
	sessions := []auth.Session{
		{ID: "s1", AccountID: "a1", CreatedAt: at(0), SeenAt: at(0), Client: "192.0.2.1"},
		{ID: "s2", AccountID: "a1", CreatedAt: at(time.Hour), SeenAt: at(time.Hour)},
		{ID: "s3", AccountID: "a2", CreatedAt: at(time.Hour), SeenAt: at(3 * time.Hour)},
	}
	for _, se := range sessions {
		if err := s.PutSession(ctx, se); err != nil {
			t.Fatalf("PutSession(%s): %v", se.ID, err)
		}
	}
	if got, err := s.Session(ctx, "s1"); err != nil || got != sessions[0] {
		t.Errorf("Session(s1) = %+v, %v; want %+v", got, err, sessions[0])
	}
	if err := s.TouchSession(ctx, "s1", at(2*time.Hour)); err != nil {
		t.Fatalf("TouchSession: %v", err)
	}
	if got, _ := s.Session(ctx, "s1"); !got.SeenAt.Equal(at(2*time.Hour)) || !got.CreatedAt.Equal(at(0)) {
		t.Errorf("after TouchSession, s1 = %+v; want SeenAt moved, CreatedAt kept", got)
	}
	if err := s.DeleteSessions(ctx, "s1", ""); err != nil {
		t.Fatalf("DeleteSessions(s1): %v", err)
	}
	if err := s.TouchSession(ctx, "s1", at(4*time.Hour)); err != nil {
		t.Fatalf("TouchSession of a deleted session: %v", err)
	}
	if _, err := s.Session(ctx, "s1"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("Session(s1) after delete and touch = %v, want ErrNotFound (a touch never brings it back)", err)
	}
	// s2 was last seen at 1h, s3 at 3h but created at 1h.
	n, err := s.PurgeSessions(ctx, at(2*time.Hour), at(30*time.Minute))
	if err != nil || n != 1 {
		t.Errorf("PurgeSessions(seen before 2h) = %d, %v; want 1 (s2)", n, err)
	}
	if _, err := s.Session(ctx, "s3"); err != nil {
		t.Errorf("Session(s3) after purge: %v", err)
	}
	n, err = s.PurgeSessions(ctx, at(0), at(2*time.Hour))
	if err != nil || n != 1 {
		t.Errorf("PurgeSessions(created before 2h) = %d, %v; want 1 (s3)", n, err)
	}
	for _, se := range sessions {
		if err := s.PutSession(ctx, se); err != nil {
			t.Fatalf("PutSession(%s): %v", se.ID, err)
		}
	}
	if err := s.DeleteSessions(ctx, "", "a1"); err != nil {
		t.Fatalf("DeleteSessions(account a1): %v", err)
	}
	for id, want := range map[string]bool{"s1": false, "s2": false, "s3": true} {
		_, err := s.Session(ctx, id)
		if got := err == nil; got != want {
			t.Errorf("after deleting a1's sessions, Session(%s) = %v; want present %v", id, err, want)
		}
	}
}

func testTokens(t *testing.T, ctx context.Context, s auth.Store) {
	putAccounts(t, ctx, s, "a1", "a2")
	tokens := []auth.Token{
		{ID: "t1", AccountID: "a1", Name: "laptop script", Hash: "h1", Role: auth.Reader, CreatedAt: at(0)},
		{ID: "t2", AccountID: "a2", Name: "ci", Hash: "h2", Role: auth.Editor, CreatedAt: at(time.Hour), Workspace: "hr"},
		{ID: "t3", AccountID: "a1", Name: "mcp", Hash: "h3", Role: auth.Editor, CreatedAt: at(2 * time.Hour)},
	}
	for _, tk := range tokens {
		if err := s.PutToken(ctx, tk); err != nil {
			t.Fatalf("PutToken(%s): %v", tk.ID, err)
		}
	}
	if got, err := s.Token(ctx, "t2"); err != nil || got != tokens[1] {
		t.Errorf("Token(t2) = %+v, %v; want %+v", got, err, tokens[1])
	}
	ids := func(accountID string) []string {
		t.Helper()
		list, err := s.Tokens(ctx, accountID)
		if err != nil {
			t.Fatalf("Tokens(%q): %v", accountID, err)
		}
		var out []string
		for _, tk := range list {
			out = append(out, tk.ID)
		}
		return out
	}
	if got := ids("a1"); !slices.Equal(got, []string{"t3", "t1"}) {
		t.Errorf("Tokens(a1) = %v, want [t3 t1] (newest first)", got)
	}
	if got := ids(""); !slices.Equal(got, []string{"t3", "t2", "t1"}) {
		t.Errorf("Tokens(all) = %v, want [t3 t2 t1]", got)
	}
	revoked := tokens[0]
	revoked.RevokedAt = at(3 * time.Hour)
	if err := s.PutToken(ctx, revoked); err != nil {
		t.Fatalf("PutToken(revoke): %v", err)
	}
	used := tokens[0]
	used.UsedAt = at(4 * time.Hour) // a use recorded from a read made before the revocation
	if err := s.PutToken(ctx, used); err != nil {
		t.Fatalf("PutToken(use): %v", err)
	}
	got, err := s.Token(ctx, "t1")
	if err != nil || !got.RevokedAt.Equal(at(3*time.Hour)) || !got.UsedAt.Equal(at(4*time.Hour)) {
		t.Errorf("Token(t1) = %+v, %v; want revoked at 3h (kept) and used at 4h", got, err)
	}
	if _, err := s.Token(ctx, "nope"); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("Token(nope) = %v, want ErrNotFound", err)
	}
}

func testAudit(t *testing.T, ctx context.Context, s auth.Store) {
	events := []auth.AuditEvent{
		{ID: "e1", At: at(0), Actor: "ana", Action: "sign-in", Client: "192.0.2.1"},
		{ID: "e2", At: at(time.Minute), Actor: "mallory", Action: "sign-in failed", Client: "198.51.100.7", Detail: "wrong name or password"},
		{ID: "e3", At: at(2 * time.Minute), Actor: "ana", Action: "delete", Target: "doc-1", Workspace: "hr"},
	}
	for _, e := range events {
		if err := s.AppendAudit(ctx, e); err != nil {
			t.Fatalf("AppendAudit(%s): %v", e.ID, err)
		}
	}
	got, err := s.Audit(ctx, 2)
	if err != nil || len(got) != 2 || got[0] != events[2] || got[1] != events[1] {
		t.Errorf("Audit(2) = %+v, %v; want e3 (in hr), e2", got, err)
	}
	if all, err := s.Audit(ctx, 100); err != nil || len(all) != 3 {
		t.Errorf("Audit(100) = %d events, %v; want 3", len(all), err)
	}
}
