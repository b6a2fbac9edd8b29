package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
)

// setupLink is the one-time link that creates the first admin when the operator gave a name but no
// password: it lives in this process's memory until used, and is worthless once any account exists.
type setupLink struct {
	token, name string
}

// Bootstrap prepares a store at start. With accounts already there it does nothing. Otherwise, given a
// name and password (HOPWISE_ADMIN_USER, HOPWISE_ADMIN_PASSWORD), it creates that admin; given a name
// alone, it returns a one-time setup token for the setup page (the caller prints the link); given
// neither, it does nothing and the install stays without accounts. There is never a default password.
func (s *Service) Bootstrap(ctx context.Context, name, password string) (setupToken string, err error) {
	if s.hasAccounts.Load() || name == "" && password == "" {
		return "", nil
	}
	if name == "" {
		return "", fmt.Errorf("%w: HOPWISE_ADMIN_PASSWORD is set but HOPWISE_ADMIN_USER is not: set the admin's user name too", ErrInvalid)
	}
	if password != "" {
		a, err := s.createAccount(ctx, name, password, Admin)
		if err != nil {
			return "", fmt.Errorf("create the first admin from HOPWISE_ADMIN_USER and HOPWISE_ADMIN_PASSWORD: %w", err)
		}
		s.Record(ctx, AuditEvent{Actor: "hopwise", Action: "account created", Target: a.Name, Detail: "admin, from HOPWISE_ADMIN_USER"})
		return "", nil
	}
	if err := checkName(NormalizeName(name)); err != nil {
		return "", fmt.Errorf("HOPWISE_ADMIN_USER: %w", err)
	}
	s.setupMu.Lock()
	defer s.setupMu.Unlock()
	s.setup = setupLink{token: randomHex(24), name: NormalizeName(name)}
	return s.setup.token, nil
}

// SetupName is the admin name the setup link creates, or "" when there is no live setup link.
func (s *Service) SetupName(token string) string {
	s.setupMu.Lock()
	defer s.setupMu.Unlock()
	if !s.setupValid(token) {
		return ""
	}
	return s.setup.name
}

func (s *Service) setupValid(token string) bool {
	return s.setup.token != "" && !s.hasAccounts.Load() && subtle.ConstantTimeCompare([]byte(token), []byte(s.setup.token)) == 1
}

// errSetupUsed: the setup link was used, or accounts exist.
var errSetupUsed = errors.New("auth: this setup link was used already or is not this server's: sign in instead")

// CompleteSetup creates the first admin with the setup token and a password chosen on the setup page,
// signs them in and spends the token.
func (s *Service) CompleteSetup(ctx context.Context, token, password, client string) (Principal, string, error) {
	s.setupMu.Lock()
	defer s.setupMu.Unlock()
	if !s.setupValid(token) {
		return Principal{}, "", fmt.Errorf("%w: %w", ErrCredentials, errSetupUsed)
	}
	a, err := s.createAccount(ctx, s.setup.name, password, Admin)
	if err != nil {
		return Principal{}, "", err
	}
	s.setup = setupLink{}
	s.Record(ctx, AuditEvent{Actor: a.Name, Action: "account created", Target: a.Name, Client: client, Detail: "admin, from the setup link"})
	secret, err := s.startSession(ctx, a, client)
	if err != nil {
		return Principal{}, "", err
	}
	s.Record(ctx, AuditEvent{Actor: a.Name, Action: "sign-in", Client: client})
	p, err := s.withMemberships(ctx, Principal{Account: a, Role: a.Role, SessionID: digest(secret)})
	return p, secret, err
}
