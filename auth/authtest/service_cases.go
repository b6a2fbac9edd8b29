package authtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/auth"
)

// Clock is a clock tests move by hand.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at a fixed instant.
func NewClock() *Clock { return &Clock{t: at(0)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// FastHash is argon2id at costs only tests use, so a suite hashes many passwords quickly.
var FastHash = auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}

// serviceFixture is a Service over a new store, with its clock and a first admin.
type serviceFixture struct {
	t     *testing.T
	ctx   context.Context
	svc   *auth.Service
	clock *Clock
	admin auth.Principal
	store auth.Store
}

const adminPassword = "correct horse battery staple"

func newServiceFixture(t *testing.T, s auth.Store) *serviceFixture {
	t.Helper()
	clock := NewClock()
	svc, err := auth.New(t.Context(), s, auth.Options{Now: clock.Now, Hash: FastHash})
	if err != nil {
		t.Fatalf("auth.New: %v", err)
	}
	if _, err := svc.Bootstrap(t.Context(), "admin", adminPassword); err != nil {
		t.Fatalf("Bootstrap: %v", err)
	}
	f := &serviceFixture{t: t, ctx: t.Context(), svc: svc, clock: clock, store: s}
	f.admin, _ = f.login("admin", adminPassword, "192.0.2.1")
	return f
}

func (f *serviceFixture) login(name, password, client string) (auth.Principal, string) {
	f.t.Helper()
	p, secret, err := f.svc.Login(f.ctx, name, password, client)
	if err != nil {
		f.t.Fatalf("Login(%s): %v", name, err)
	}
	return p, secret
}

func (f *serviceFixture) account(name string, role auth.Role) auth.Account {
	f.t.Helper()
	a, err := f.svc.CreateAccount(f.ctx, f.admin, name, "a password of "+name+"!", role)
	if err != nil {
		f.t.Fatalf("CreateAccount(%s): %v", name, err)
	}
	return a
}

// RunService runs the Service's tests over stores from newStore: sign-in, sessions and their expiry,
// tokens and their revocation, rate limits, account rules and the first start.
func RunService(t *testing.T, newStore func(t *testing.T) auth.Store) {
	cases := []struct {
		name string
		run  func(t *testing.T, f *serviceFixture)
	}{
		{"sign-in and its failures are audited", testSignIn},
		{"a session ends after the idle time", testIdleExpiry},
		{"a session ends at the absolute time however used", testAbsoluteExpiry},
		{"a disabled account's sessions and tokens stop", testDisabled},
		{"tokens work until revoked and never exceed their account", testTokenLife},
		{"sign-ins are rate limited per account and per client", testRateLimits},
		{"changing the password ends the other sessions", testChangePassword},
		{"the last admin stays an admin", testLastAdmin},
		{"an admin sets a forgotten password", testSetPassword},
		{"roles hold per workspace; tokens keep to their workspace", testWorkspaceRoles},
		{"a workspace's admin sets its entity types", testSetEntityTypes},
		{"an admin deletes a workspace, never the default, once confirmed", testServiceDeleteWorkspace},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newServiceFixture(t, newStore(t))) })
	}
	t.Run("first start", func(t *testing.T) { testFirstStart(t, newStore(t)) })
}

func wantCredentials(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, auth.ErrCredentials) {
		t.Errorf("%s: error %v, want ErrCredentials", what, err)
	}
}

func testSignIn(t *testing.T, f *serviceFixture) {
	f.account("bo", auth.Reader)
	_, _, err := f.svc.Login(f.ctx, "bo", "not the password!", "198.51.100.7")
	wantCredentials(t, "wrong password", err)
	_, _, err = f.svc.Login(f.ctx, "nobody", "not the password!", "198.51.100.7")
	wantCredentials(t, "unknown name", err)
	p1, s1 := f.login("BO ", "a password of bo!", "198.51.100.8")
	p2, s2 := f.login("bo", "a password of bo!", "198.51.100.8")
	if s1 == s2 || p1.SessionID == p2.SessionID || p1.Role != auth.Reader {
		t.Errorf("two sign-ins gave sessions %q and %q (role %s); want two distinct sessions of a reader", p1.SessionID, p2.SessionID, p1.Role)
	}
	if got, err := f.svc.SessionPrincipal(f.ctx, s1); err != nil || got.Account.Name != "bo" {
		t.Errorf("SessionPrincipal = %+v, %v; want bo", got, err)
	}
	madeUp := "00" + s1[2:]
	if madeUp == s1 { // one token in 256 starts with "00"
		madeUp = "11" + s1[2:]
	}
	wantCredentials(t, "a made-up session", func() error { _, err := f.svc.SessionPrincipal(f.ctx, madeUp); return err }())
	events, err := f.svc.Audit(f.ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range events {
		count[e.Action+" "+e.Actor+" "+e.Client]++
	}
	for key, want := range map[string]int{
		"sign-in failed bo 198.51.100.7": 1, "sign-in failed nobody 198.51.100.7": 1, "sign-in bo 198.51.100.8": 2,
	} {
		if count[key] != want {
			t.Errorf("audit log has %d of %q, want %d; log: %+v", count[key], key, want, events)
		}
	}
}

func testIdleExpiry(t *testing.T, f *serviceFixture) {
	_, secret := f.login("admin", adminPassword, "192.0.2.1")
	for range 5 { // used every 20 minutes: alive after 100 minutes
		f.clock.Advance(20 * time.Minute)
		if _, err := f.svc.SessionPrincipal(f.ctx, secret); err != nil {
			t.Fatalf("session used every 20 minutes ended: %v", err)
		}
	}
	f.clock.Advance(31 * time.Minute)
	_, err := f.svc.SessionPrincipal(f.ctx, secret)
	wantCredentials(t, "after 31 idle minutes", err)
	f.clock.Advance(-31 * time.Minute) // the expired session was deleted, not only refused
	_, err = f.svc.SessionPrincipal(f.ctx, secret)
	wantCredentials(t, "the expired session, with the clock set back", err)
}

func testAbsoluteExpiry(t *testing.T, f *serviceFixture) {
	_, secret := f.login("admin", adminPassword, "192.0.2.1")
	for elapsed := time.Duration(0); elapsed < 12*time.Hour-20*time.Minute; elapsed += 20 * time.Minute {
		f.clock.Advance(20 * time.Minute)
		if _, err := f.svc.SessionPrincipal(f.ctx, secret); err != nil {
			t.Fatalf("session ended after %s of use: %v", elapsed+20*time.Minute, err)
		}
	}
	f.clock.Advance(21 * time.Minute)
	_, err := f.svc.SessionPrincipal(f.ctx, secret)
	wantCredentials(t, "past 12 hours", err)
}

func testDisabled(t *testing.T, f *serviceFixture) {
	bo := f.account("bo", auth.Editor)
	p, secret := f.login("bo", "a password of bo!", "192.0.2.2")
	_, token, err := f.svc.CreateToken(f.ctx, p, "script", auth.Editor)
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	if err := f.svc.SetDisabled(f.ctx, f.admin, bo.ID, true); err != nil {
		t.Fatalf("SetDisabled: %v", err)
	}
	_, err = f.svc.SessionPrincipal(f.ctx, secret)
	wantCredentials(t, "session of a disabled account", err)
	_, err = f.svc.TokenPrincipal(f.ctx, token)
	wantCredentials(t, "token of a disabled account", err)
	_, _, err = f.svc.Login(f.ctx, "bo", "a password of bo!", "192.0.2.2")
	wantCredentials(t, "sign-in of a disabled account", err)
	if err := f.svc.SetDisabled(f.ctx, f.admin, bo.ID, false); err != nil {
		t.Fatalf("enable: %v", err)
	}
	if _, err := f.svc.TokenPrincipal(f.ctx, token); err != nil {
		t.Errorf("token after enabling the account again: %v", err)
	}
}

func testTokenLife(t *testing.T, f *serviceFixture) {
	bo := f.account("bo", auth.Editor)
	p, _ := f.login("bo", "a password of bo!", "192.0.2.2")
	if _, _, err := f.svc.CreateToken(f.ctx, p, "too much", auth.Admin); !auth.IsInvalid(err) {
		t.Errorf("an editor's admin token: %v, want refused", err)
	}
	tk, token, err := f.svc.CreateToken(f.ctx, p, "reader script", auth.Reader)
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	got, err := f.svc.TokenPrincipal(f.ctx, token)
	if err != nil || got.Role != auth.Reader || got.Account.ID != bo.ID || got.TokenID != tk.ID {
		t.Errorf("TokenPrincipal = %+v, %v; want bo as reader by token %s", got, err, tk.ID)
	}
	_, eTok, _ := f.svc.CreateToken(f.ctx, p, "editor script", auth.Editor)
	if err := f.svc.SetRole(f.ctx, f.admin, bo.ID, auth.Reader); err != nil {
		t.Fatal(err)
	}
	if got, err := f.svc.TokenPrincipal(f.ctx, eTok); err != nil || got.Role != auth.Reader {
		t.Errorf("editor token of an account made reader acts as %s (%v), want reader", got.Role, err)
	}
	for _, bad := range []string{"", "hwt_", "hwt_" + tk.ID, "hwt_" + tk.ID + "_" + "00", token[:len(token)-1] + "x", "Bearer " + token} {
		_, err := f.svc.TokenPrincipal(f.ctx, bad)
		wantCredentials(t, "token "+bad, err)
	}
	if list, _ := f.svc.Tokens(f.ctx, p, false); len(list) != 2 {
		t.Errorf("bo's tokens = %d, want 2", len(list))
	}
	if err := f.svc.RevokeToken(f.ctx, f.admin, tk.ID); err != nil { // an admin revokes any token
		t.Fatalf("RevokeToken: %v", err)
	}
	_, err = f.svc.TokenPrincipal(f.ctx, token)
	wantCredentials(t, "a revoked token", err)
	ana := f.account("ana", auth.Editor)
	pa, _ := f.login("ana", "a password of ana!", "192.0.2.3")
	if err := f.svc.RevokeToken(f.ctx, pa, tk.ID); !errors.Is(err, auth.ErrNotFound) {
		t.Errorf("ana revoking bo's token: %v, want ErrNotFound", err)
	}
	_ = ana
}

func testRateLimits(t *testing.T, f *serviceFixture) {
	f.account("bo", auth.Reader)
	for i := range 5 {
		_, _, err := f.svc.Login(f.ctx, "bo", "wrong password!", "192.0.2.10")
		wantCredentials(t, "failure "+string(rune('1'+i)), err)
	}
	var throttled *auth.ThrottledError
	if _, _, err := f.svc.Login(f.ctx, "bo", "a password of bo!", "192.0.2.11"); !errors.As(err, &throttled) {
		t.Fatalf("sixth attempt, right password, other client: %v; want ThrottledError", err)
	}
	f.clock.Advance(16 * time.Minute)
	f.login("bo", "a password of bo!", "192.0.2.11")

	// One client trying many names is stopped at 20, another client is not.
	for i := range 20 {
		_, _, err := f.svc.Login(f.ctx, "guess"+string(rune('a'+i)), "wrong password!", "203.0.113.5")
		wantCredentials(t, "guess", err)
	}
	if _, _, err := f.svc.Login(f.ctx, "bo", "a password of bo!", "203.0.113.5"); !errors.As(err, &throttled) {
		t.Errorf("21st attempt from one client: %v; want ThrottledError", err)
	}
	f.login("bo", "a password of bo!", "203.0.113.6")
}

func testChangePassword(t *testing.T, f *serviceFixture) {
	f.account("bo", auth.Reader)
	p, _ := f.login("bo", "a password of bo!", "192.0.2.2")
	_, other := f.login("bo", "a password of bo!", "192.0.2.3")
	if _, err := f.svc.ChangePassword(f.ctx, p, "wrong password!", "a brand new password", "192.0.2.2"); !auth.IsInvalid(err) {
		t.Errorf("change with a wrong current password: %v, want refused", err)
	}
	if _, err := f.svc.ChangePassword(f.ctx, p, "a password of bo!", "short", "192.0.2.2"); !auth.IsInvalid(err) {
		t.Errorf("change to a short password: %v, want refused", err)
	}
	fresh, err := f.svc.ChangePassword(f.ctx, p, "a password of bo!", "a brand new password", "192.0.2.2")
	if err != nil {
		t.Fatalf("ChangePassword: %v", err)
	}
	_, err = f.svc.SessionPrincipal(f.ctx, other)
	wantCredentials(t, "another browser's session after the change", err)
	if _, err := f.svc.SessionPrincipal(f.ctx, fresh); err != nil {
		t.Errorf("the new session of the browser that changed it: %v", err)
	}
	_, _, err = f.svc.Login(f.ctx, "bo", "a password of bo!", "192.0.2.2")
	wantCredentials(t, "the old password", err)
	f.login("bo", "a brand new password", "192.0.2.2")
}

func testLastAdmin(t *testing.T, f *serviceFixture) {
	bo := f.account("bo", auth.Admin)
	pb, _ := f.login("bo", "a password of bo!", "192.0.2.2")
	if err := f.svc.SetRole(f.ctx, pb, f.admin.Account.ID, auth.Reader); err != nil {
		t.Fatalf("bo demotes admin while bo is an admin too: %v", err)
	}
	if err := f.svc.SetDisabled(f.ctx, pb, bo.ID, true); !auth.IsInvalid(err) {
		t.Errorf("bo disabling bo: %v, want refused", err)
	}
	reader, _ := f.login("admin", adminPassword, "192.0.2.1")
	if err := f.svc.SetRole(f.ctx, reader, bo.ID, auth.Reader); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("a reader changing a role: %v, want ErrForbidden", err)
	}
	if _, err := f.svc.CreateAccount(f.ctx, reader, "eve", "a long enough password", auth.Admin); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("a reader creating an account: %v, want ErrForbidden", err)
	}
	if _, err := f.svc.CreateAccount(f.ctx, pb, "Bo", "another long password", auth.Reader); !errors.Is(err, auth.ErrNameTaken) {
		t.Errorf("a second bo: %v, want ErrNameTaken", err)
	}
}

func testFirstStart(t *testing.T, s auth.Store) {
	ctx := t.Context()
	svc, err := auth.New(ctx, s, auth.Options{Hash: FastHash, Required: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateAccount(ctx, auth.LocalPrincipal(), "first", "a long enough password", auth.Editor); !auth.IsInvalid(err) {
		t.Errorf("a first account that is no admin: %v, want refused", err)
	}
	token, err := svc.Bootstrap(ctx, "Root", "")
	if err != nil || token == "" {
		t.Fatalf("Bootstrap(name only) = %q, %v; want a setup token", token, err)
	}
	if got := svc.SetupName(token); got != "root" {
		t.Errorf("SetupName = %q, want root", got)
	}
	if svc.SetupName("wrong") != "" {
		t.Error("a wrong setup token names an account")
	}
	if _, _, err := svc.CompleteSetup(ctx, token, "short", "192.0.2.1"); !auth.IsInvalid(err) {
		t.Errorf("setup with a short password: %v, want refused", err)
	}
	p, _, err := svc.CompleteSetup(ctx, token, "a long enough password", "192.0.2.1")
	if err != nil || p.Role != auth.Admin || p.Account.Name != "root" {
		t.Fatalf("CompleteSetup = %+v, %v; want root, admin", p, err)
	}
	if _, _, err := svc.CompleteSetup(ctx, token, "another long password", "192.0.2.1"); !errors.Is(err, auth.ErrCredentials) {
		t.Errorf("the setup link a second time: %v, want refused", err)
	}
	// A later start with the settings still there changes nothing.
	again, err := auth.New(ctx, s, auth.Options{Hash: FastHash})
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := again.Bootstrap(ctx, "other", "yet another password"); err != nil || tok != "" {
		t.Errorf("Bootstrap on a store with accounts = %q, %v; want nothing", tok, err)
	}
	if list, _ := s.Accounts(ctx); len(list) != 1 {
		t.Errorf("accounts after the second start = %d, want 1", len(list))
	}
	if !again.Enforced() {
		t.Error("a store with an account does not require sign-in")
	}
}

func testSetPassword(t *testing.T, f *serviceFixture) {
	bo := f.account("bo", auth.Editor)
	pb, secret := f.login("bo", "a password of bo!", "192.0.2.2")
	if err := f.svc.SetPassword(f.ctx, pb, f.admin.Account.ID, "an editor's takeover"); !errors.Is(err, auth.ErrForbidden) {
		t.Errorf("an editor setting the admin's password: %v, want ErrForbidden", err)
	}
	if err := f.svc.SetPassword(f.ctx, f.admin, bo.ID, "short"); !auth.IsInvalid(err) {
		t.Errorf("a short password: %v, want refused", err)
	}
	if err := f.svc.SetPassword(f.ctx, f.admin, f.admin.Account.ID, "the admin's own new one"); !auth.IsInvalid(err) {
		t.Errorf("the admin's own password here: %v, want refused (Settings asks for the current one)", err)
	}
	if err := f.svc.SetPassword(f.ctx, f.admin, bo.ID, "bo's brand new password"); err != nil {
		t.Fatalf("SetPassword: %v", err)
	}
	_, err := f.svc.SessionPrincipal(f.ctx, secret)
	wantCredentials(t, "bo's session after the reset", err)
	_, _, err = f.svc.Login(f.ctx, "bo", "a password of bo!", "192.0.2.2")
	wantCredentials(t, "bo's old password", err)
	f.login("bo", "bo's brand new password", "192.0.2.2")
}
