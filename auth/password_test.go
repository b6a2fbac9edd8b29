package auth

import (
	"strings"
	"testing"
	"time"
)

func TestPasswordHash(t *testing.T) {
	p := HashParams{MemoryKiB: 64, Time: 1, Threads: 1}
	h := hashPassword("correct horse battery staple", p)
	if !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q is not a PHC argon2id string", h)
	}
	if h == hashPassword("correct horse battery staple", p) {
		t.Error("two hashes of one password are equal: no salt")
	}
	if !verifyPassword("correct horse battery staple", h) {
		t.Error("the password does not verify")
	}
	for _, tc := range []struct{ name, pw, hash string }{
		{"wrong password", "correct horse battery stapler", h},
		{"empty hash", "x", ""},
		{"another algorithm", "correct horse battery staple", strings.Replace(h, "argon2id", "argon2i", 1)},
		{"absurd memory", "correct horse battery staple", strings.Replace(h, "m=64", "m=99999999", 1)},
		{"truncated", "correct horse battery staple", h[:len(h)-10]},
	} {
		if verifyPassword(tc.pw, tc.hash) {
			t.Errorf("%s: verifies", tc.name)
		}
	}
	if DefaultHash.MemoryKiB < 19*1024 || DefaultHash.Time < 2 {
		t.Errorf("DefaultHash %+v is below OWASP's argon2id minimum (19 MiB, 2 passes)", DefaultHash)
	}
}

func TestPasswordLength(t *testing.T) {
	for pw, ok := range map[string]bool{
		"short":                        false,
		"twelve chars":                 true,
		strings.Repeat("ü", 12):        true,
		strings.Repeat("a", 128):       true,
		strings.Repeat("a", 129):       false,
		"correct horse battery staple": true,
	} {
		if got := checkPassword(pw) == nil; got != ok {
			t.Errorf("checkPassword(%q) accepted %v, want %v", pw, got, ok)
		}
	}
}

func TestAttemptsHoldBoundedKeys(t *testing.T) {
	a := newAttempts(3, time.Minute)
	a.maxKeys = 100
	now := time.Unix(1e9, 0)
	for i := range 1000 {
		a.fail(string(rune(0x4e00+i)), now.Add(time.Duration(i)*time.Millisecond))
	}
	if len(a.fails) > 100 {
		t.Errorf("%d keys held, want at most 100", len(a.fails))
	}
	for range 3 {
		a.fail("bo", now)
	}
	if blocked, until := a.blocked("bo", now.Add(59*time.Second)); !blocked || !until.Equal(now.Add(time.Minute)) {
		t.Errorf("blocked = %v until %v, want blocked until %v", blocked, until, now.Add(time.Minute))
	}
	if blocked, _ := a.blocked("bo", now.Add(time.Minute)); blocked {
		t.Error("still blocked once the failures left the window")
	}
}

// BenchmarkHashPassword measures one argon2id hash at DefaultHash: the cost of each sign-in.
func BenchmarkHashPassword(b *testing.B) {
	for b.Loop() {
		hashPassword("correct horse battery staple", DefaultHash)
	}
}
