package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
)

// tokenPrefix starts every API token, so a leaked one is easy to recognise (and to search for).
const tokenPrefix = "hwt_"

// CreateToken makes an API token for p's account with a role no higher than p's, and returns it with the
// token itself, which is shown this once: the store keeps only its hash.
func (s *Service) CreateToken(ctx context.Context, p Principal, name string, role Role) (Token, string, error) {
	return s.CreateWorkspaceToken(ctx, p, name, role, "")
}

// CreateWorkspaceToken is CreateToken for a token that acts in workspace alone ("" every workspace of its
// account), which p must be able to enter.
func (s *Service) CreateWorkspaceToken(ctx context.Context, p Principal, name string, role Role, workspace string) (Token, string, error) {
	if p.Local || p.Account.ID == "" {
		return Token{}, "", fmt.Errorf("%w: API tokens belong to an account: create one first", ErrInvalid)
	}
	if p.TokenID != "" {
		return Token{}, "", fmt.Errorf("%w: sign in with a password to create tokens", ErrInvalid)
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return Token{}, "", fmt.Errorf("%w: give the token a name of 1 to 100 characters (what it is for)", ErrInvalid)
	}
	if !role.Valid() {
		return Token{}, "", fmt.Errorf("%w: choose reader, editor or admin", ErrInvalid)
	}
	if !p.Role.Allows(role) {
		return Token{}, "", fmt.Errorf("%w: a token cannot do more than its account: choose %s or lower", ErrInvalid, p.Role)
	}
	if workspace != "" && p.RoleIn(workspace) == "" {
		return Token{}, "", fmt.Errorf("%w: you are no member of the workspace %q", ErrInvalid, workspace)
	}
	id, secret := randomHex(8), randomHex(32)
	t := Token{ID: id, AccountID: p.Account.ID, Name: name, Hash: digest(secret), Role: role, Workspace: workspace, CreatedAt: s.now()}
	if err := s.store.PutToken(ctx, t); err != nil {
		return Token{}, "", err
	}
	s.Record(ctx, AuditEvent{Actor: p.Name(), Action: "token created", Target: id, Detail: name + " (" + string(role) + ")", Workspace: workspace})
	return t, tokenPrefix + id + "_" + secret, nil
}

// Tokens lists p's own tokens, or with all set (admins only) every account's.
func (s *Service) Tokens(ctx context.Context, p Principal, all bool) ([]Token, error) {
	if all {
		if !p.Role.Allows(Admin) {
			return nil, ErrForbidden
		}
		return s.store.Tokens(ctx, "")
	}
	if p.Account.ID == "" {
		return nil, nil
	}
	return s.store.Tokens(ctx, p.Account.ID)
}

// RevokeToken ends a token at once: p's own, or any for an admin.
func (s *Service) RevokeToken(ctx context.Context, p Principal, id string) error {
	t, err := s.store.Token(ctx, id)
	if err != nil {
		return err
	}
	if t.AccountID != p.Account.ID && !p.Role.Allows(Admin) {
		return ErrNotFound // another's token is not even there
	}
	if t.Revoked() {
		return nil
	}
	t.RevokedAt = s.now()
	if err := s.store.PutToken(ctx, t); err != nil {
		return err
	}
	s.Record(ctx, AuditEvent{Actor: p.Name(), Action: "token revoked", Target: id, Detail: t.Name, Workspace: t.Workspace})
	return nil
}

// TokenPrincipal returns who a Bearer token acts for: ErrCredentials when it is malformed, unknown,
// revoked, or its account is disabled or gone. The principal's role is the lower of the token's and the
// account's, so a demoted account's tokens are demoted too.
func (s *Service) TokenPrincipal(ctx context.Context, token string) (Principal, error) {
	id, secret, ok := strings.Cut(strings.TrimPrefix(token, tokenPrefix), "_")
	if !strings.HasPrefix(token, tokenPrefix) || !ok || id == "" || secret == "" {
		return Principal{}, ErrCredentials
	}
	t, err := s.store.Token(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Principal{}, ErrCredentials
	}
	if err != nil {
		return Principal{}, err
	}
	if subtle.ConstantTimeCompare([]byte(digest(secret)), []byte(t.Hash)) != 1 || t.Revoked() {
		return Principal{}, ErrCredentials
	}
	a, err := s.liveAccount(ctx, t.AccountID)
	if err != nil {
		return Principal{}, err
	}
	if now := s.now(); now.Sub(t.UsedAt) > touchEvery {
		t.UsedAt = now
		if err := s.store.PutToken(ctx, t); err != nil {
			return Principal{}, err
		}
	}
	return s.withMemberships(ctx, Principal{Account: a, Role: lower(t.Role, a.Role), TokenID: t.ID, tokenRole: t.Role, tokenWorkspace: t.Workspace})
}
