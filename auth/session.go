package auth

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ThrottledError refuses a sign-in after too many failures of the account or the client.
type ThrottledError struct{ Until time.Time }

func (e *ThrottledError) Error() string {
	return "auth: too many failed sign-ins: wait a few minutes before trying again"
}

// touchEvery bounds how often a used session's SeenAt is written.
const touchEvery = time.Minute

// Login checks a name and password from client and starts a new session, returning the principal and
// the secret the session cookie carries. A fresh session is made at every sign-in (the cookie of any
// earlier one is worthless: no fixation). Failures say only ErrCredentials (or ThrottledError) and are
// counted per account name and per client; both are written to the audit log.
func (s *Service) Login(ctx context.Context, name, password, client string) (Principal, string, error) {
	name = NormalizeName(name)
	now := s.now()
	if until, throttled := s.throttled(name, client, now); throttled {
		s.Record(ctx, AuditEvent{Actor: name, Action: "sign-in refused", Client: client, Detail: "too many failed attempts"})
		return Principal{}, "", &ThrottledError{Until: until}
	}
	a, err := s.store.AccountNamed(ctx, name)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Principal{}, "", err
	}
	hash := a.PasswordHash
	if err != nil {
		hash = s.dummyHash
	}
	ok, verr := s.verify(ctx, password, hash)
	if verr != nil {
		return Principal{}, "", verr
	}
	if err != nil || !ok || a.Disabled {
		s.byAccount.fail(name, now)
		s.byClient.fail(client, now)
		detail := "wrong name or password"
		if ok && a.Disabled {
			detail = "account disabled"
		}
		s.Record(ctx, AuditEvent{Actor: name, Action: "sign-in failed", Client: client, Detail: detail})
		return Principal{}, "", ErrCredentials
	}
	s.byAccount.reset(name)
	secret, err := s.startSession(ctx, a, client)
	if err != nil {
		return Principal{}, "", err
	}
	s.Record(ctx, AuditEvent{Actor: a.Name, Action: "sign-in", Client: client})
	s.purge(ctx, now)
	p, err := s.withMemberships(ctx, Principal{Account: a, Role: a.Role, SessionID: digest(secret)})
	return p, secret, err
}

func (s *Service) throttled(name, client string, now time.Time) (time.Time, bool) {
	if blocked, until := s.byAccount.blocked(name, now); blocked {
		return until, true
	}
	blocked, until := s.byClient.blocked(client, now)
	return until, blocked
}

// startSession stores a new session of a and returns its cookie secret.
func (s *Service) startSession(ctx context.Context, a Account, client string) (string, error) {
	secret := randomHex(32)
	now := s.now()
	err := s.store.PutSession(ctx, Session{ID: digest(secret), AccountID: a.ID, CreatedAt: now, SeenAt: now, Client: client})
	if err != nil {
		return "", fmt.Errorf("auth: start session: %w", err)
	}
	return secret, nil
}

// purge removes expired sessions now and then (after sign-ins), so the store does not keep them forever.
func (s *Service) purge(ctx context.Context, now time.Time) {
	if _, err := s.store.PurgeSessions(ctx, now.Add(-s.opt.Idle), now.Add(-s.opt.Absolute)); err != nil {
		s.opt.Logger.Warn("purge expired sessions", "err", err)
	}
}

// SessionPrincipal returns who a session cookie's secret signs in: ErrCredentials when the session is
// unknown, idle longer than Options.Idle, older than Options.Absolute, or its account is disabled or gone.
// An expired session is deleted.
func (s *Service) SessionPrincipal(ctx context.Context, secret string) (Principal, error) {
	if secret == "" {
		return Principal{}, ErrCredentials
	}
	id := digest(secret)
	sess, err := s.store.Session(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Principal{}, ErrCredentials
	}
	if err != nil {
		return Principal{}, err
	}
	now := s.now()
	if now.Sub(sess.SeenAt) > s.opt.Idle || now.Sub(sess.CreatedAt) > s.opt.Absolute {
		if err := s.store.DeleteSessions(ctx, id, ""); err != nil {
			return Principal{}, err
		}
		return Principal{}, ErrCredentials
	}
	a, err := s.liveAccount(ctx, sess.AccountID)
	if err != nil {
		return Principal{}, err
	}
	if now.Sub(sess.SeenAt) > touchEvery {
		if err := s.store.TouchSession(ctx, id, now); err != nil {
			return Principal{}, err
		}
	}
	return s.withMemberships(ctx, Principal{Account: a, Role: a.Role, SessionID: id})
}

// liveAccount is the account with this ID when it exists and is enabled, else ErrCredentials.
func (s *Service) liveAccount(ctx context.Context, id string) (Account, error) {
	a, err := s.store.Account(ctx, id)
	if errors.Is(err, ErrNotFound) || err == nil && a.Disabled {
		return Account{}, ErrCredentials
	}
	return a, err
}

// Logout ends the principal's session.
func (s *Service) Logout(ctx context.Context, p Principal, client string) error {
	if p.SessionID == "" {
		return nil
	}
	if err := s.store.DeleteSessions(ctx, p.SessionID, ""); err != nil {
		return err
	}
	s.Record(ctx, AuditEvent{Actor: p.Name(), Action: "sign-out", Client: client})
	return nil
}

// EndOtherSessions signs the account out of every other browser: its sessions end and the caller's goes
// on as a new session, whose cookie secret is returned.
func (s *Service) EndOtherSessions(ctx context.Context, p Principal, client string) (string, error) {
	if p.SessionID == "" {
		return "", fmt.Errorf("%w: sign in with a password first", ErrInvalid)
	}
	if err := s.store.DeleteSessions(ctx, "", p.Account.ID); err != nil {
		return "", err
	}
	secret, err := s.startSession(ctx, p.Account, client)
	if err != nil {
		return "", err
	}
	s.Record(ctx, AuditEvent{Actor: p.Name(), Action: "other browsers signed out", Client: client})
	return secret, nil
}
