package auth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options tune a Service; zero fields take the defaults named.
type Options struct {
	// Idle ends a session not used for this long (30 minutes), Absolute one signed in this long ago
	// (12 hours), whatever its use: OWASP ASVS 3.3.2 at level 2.
	Idle, Absolute time.Duration
	// AccountAttempts failed sign-ins of one account name (5), or ClientAttempts from one client address
	// (20), within AttemptWindow (15 minutes) refuse further attempts until the oldest leaves the window.
	AccountAttempts, ClientAttempts int
	AttemptWindow                   time.Duration
	// Required makes every non-public route ask for a sign-in even while no account exists (a server
	// others can reach, waiting for its first admin); without it a store without accounts is a laptop
	// install and nobody signs in.
	Required bool
	// Hash are the argon2id costs of new passwords (DefaultHash).
	Hash HashParams
	// Now is the clock (time.Now); tests move it to expire sessions.
	Now    func() time.Time
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	o.Idle = cmp.Or(o.Idle, 30*time.Minute)
	o.Absolute = cmp.Or(o.Absolute, 12*time.Hour)
	o.AccountAttempts = cmp.Or(o.AccountAttempts, 5)
	o.ClientAttempts = cmp.Or(o.ClientAttempts, 20)
	o.AttemptWindow = cmp.Or(o.AttemptWindow, 15*time.Minute)
	if o.Hash == (HashParams{}) {
		o.Hash = DefaultHash
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Service signs people in and out, checks sessions and tokens and manages accounts, over a Store.
type Service struct {
	store Store
	opt   Options
	// hashing bounds the argon2id hashes computed at once (19 MiB each): a burst of sign-ins waits
	// rather than taking the memory of the process.
	hashing chan struct{}
	// hasAccounts caches whether any account exists: once one does, sign-in is required for good.
	hasAccounts atomic.Bool
	byAccount   *attempts
	byClient    *attempts
	// dummyHash is verified when a name is unknown, so a wrong name takes as long as a wrong password.
	dummyHash string

	setupMu sync.Mutex
	setup   setupLink
}

// New returns a Service over store. It reads whether accounts exist once; call Bootstrap at start.
func New(ctx context.Context, store Store, opt Options) (*Service, error) {
	opt = opt.withDefaults()
	s := &Service{
		store: store, opt: opt, hashing: make(chan struct{}, 2),
		byAccount: newAttempts(opt.AccountAttempts, opt.AttemptWindow),
		byClient:  newAttempts(opt.ClientAttempts, opt.AttemptWindow),
		dummyHash: hashPassword("not a password of anybody", opt.Hash),
	}
	accounts, err := store.Accounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: read accounts: %w", err)
	}
	s.hasAccounts.Store(len(accounts) > 0)
	return s, nil
}

// Enforced reports whether requests must be signed in: some account exists, or Options.Required.
func (s *Service) Enforced() bool { return s.opt.Required || s.hasAccounts.Load() }

// Idle is how long an unused session lives.
func (s *Service) Idle() time.Duration { return s.opt.Idle }

func (s *Service) now() time.Time { return s.opt.Now().UTC() }

// Record adds an event to the audit log; a failure is logged, never the caller's failure.
func (s *Service) Record(ctx context.Context, e AuditEvent) {
	if e.ID == "" {
		e.ID = randomHex(12)
	}
	if e.At.IsZero() {
		e.At = s.now()
	}
	if e.Client == "" {
		e.Client, _ = ctx.Value(clientKey{}).(string)
	}
	if err := s.store.AppendAudit(context.WithoutCancel(ctx), e); err != nil {
		s.opt.Logger.Error("audit log write failed", "action", e.Action, "actor", e.Actor, "err", err)
	}
}

type clientKey struct{}

// WithClient tells Record, for the events of this request, the address the request came from.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// Audit returns the latest limit events of the audit log, newest first.
func (s *Service) Audit(ctx context.Context, limit int) ([]AuditEvent, error) {
	return s.store.Audit(ctx, limit)
}

// hash computes an argon2id hash within the bound on hashes at once.
func (s *Service) hash(ctx context.Context, pw string) (string, error) {
	if err := s.acquire(ctx); err != nil {
		return "", err
	}
	defer func() { <-s.hashing }()
	return hashPassword(pw, s.opt.Hash), nil
}

func (s *Service) verify(ctx context.Context, pw, phc string) (bool, error) {
	if err := s.acquire(ctx); err != nil {
		return false, err
	}
	defer func() { <-s.hashing }()
	return verifyPassword(pw, phc), nil
}

func (s *Service) acquire(ctx context.Context) error {
	select {
	case s.hashing <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// digest is the stored form of a secret a client presents (a session cookie, a token's secret): the
// secrets are 256 random bits, so a fast hash suffices and a stolen database opens nothing.
func digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Absolute is how long a session lives at most.
func (s *Service) Absolute() time.Duration { return s.opt.Absolute }

// EndSession deletes the session of a cookie secret, if any: a browser signing in again drops the old
// one rather than leaving it to expire.
func (s *Service) EndSession(ctx context.Context, secret string) error {
	if secret == "" {
		return nil
	}
	return s.store.DeleteSessions(ctx, digest(secret), "")
}

// Problem is the message of an error a person can correct (IsInvalid), without the package prefixes.
func Problem(err error) string {
	if errors.Is(err, ErrNameTaken) {
		return "An account with this name exists: choose another name."
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ErrInvalid.Error()+": "); i >= 0 {
		msg = msg[i+len(ErrInvalid.Error())+2:]
	}
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// HasAccounts reports whether any account exists.
func (s *Service) HasAccounts() bool { return s.hasAccounts.Load() }
