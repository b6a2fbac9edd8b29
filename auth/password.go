package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// HashParams are argon2id's costs. DefaultHash is OWASP's first recommendation (19 MiB, 2 passes, one
// thread): 28 ms a hash on one core of the 2-core development machine (BenchmarkHashPassword, measured
// while other work ran).
type HashParams struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// DefaultHash is what new passwords are hashed with; a stored hash keeps the costs it was made with.
var DefaultHash = HashParams{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

const (
	saltBytes = 16
	keyBytes  = 32
	// MinPassword and MaxPassword bound a password's length in characters (OWASP ASVS 2.1.1, 2.1.2).
	MinPassword = 12
	MaxPassword = 128
)

// checkPassword refuses a password too short or too long; it sets no rules of composition.
func checkPassword(pw string) error {
	n := utf8.RuneCountInString(pw)
	if n < MinPassword {
		return fmt.Errorf("%w: a password needs at least %d characters (a few words make a good one)", ErrInvalid, MinPassword)
	}
	if n > MaxPassword {
		return fmt.Errorf("%w: a password may have at most %d characters", ErrInvalid, MaxPassword)
	}
	return nil
}

// hashPassword returns the PHC string of pw under p with a random salt.
func hashPassword(pw string, p HashParams) string {
	salt := make([]byte, saltBytes)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, keyBytes)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// verifyPassword reports whether pw matches a PHC string hashPassword made; a malformed hash matches
// nothing.
func verifyPassword(pw, phc string) bool {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return false
	}
	var p HashParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false
	}
	if p.MemoryKiB == 0 || p.MemoryKiB > 1<<20 || p.Time == 0 || p.Time > 16 || p.Threads == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
