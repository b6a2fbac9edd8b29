package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// NormalizeName is the form account names are stored and looked up in.
func NormalizeName(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// checkName accepts 1 to 64 letters, digits and . _ - @.
func checkName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("%w: a user name has 1 to 64 characters", ErrInvalid)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r)) {
			return fmt.Errorf("%w: a user name may hold letters, digits and . _ - @ only", ErrInvalid)
		}
	}
	return nil
}

// Accounts lists every account by name.
func (s *Service) Accounts(ctx context.Context) ([]Account, error) { return s.store.Accounts(ctx) }

// CreateAccount adds an account; by must be an admin. The first account of a store must be an admin, so
// someone can always manage the others.
func (s *Service) CreateAccount(ctx context.Context, by Principal, name, password string, role Role) (Account, error) {
	if !by.Role.Allows(Admin) {
		return Account{}, ErrForbidden
	}
	a, err := s.createAccount(ctx, name, password, role)
	if err != nil {
		return Account{}, err
	}
	s.Record(ctx, AuditEvent{Actor: by.Name(), Action: "account created", Target: a.Name, Detail: string(a.Role)})
	return a, nil
}

func (s *Service) createAccount(ctx context.Context, name, password string, role Role) (Account, error) {
	name = NormalizeName(name)
	if err := checkName(name); err != nil {
		return Account{}, err
	}
	if !role.Valid() {
		return Account{}, fmt.Errorf("%w: choose reader, editor or admin", ErrInvalid)
	}
	if err := checkPassword(password); err != nil {
		return Account{}, err
	}
	if !s.hasAccounts.Load() && role != Admin {
		return Account{}, fmt.Errorf("%w: the first account must be an admin, so that someone can manage the others", ErrInvalid)
	}
	hash, err := s.hash(ctx, password)
	if err != nil {
		return Account{}, err
	}
	now := s.now()
	a := Account{ID: randomHex(12), Name: name, PasswordHash: hash, Role: role, CreatedAt: now, UpdatedAt: now}
	if err := s.store.PutAccount(ctx, a); err != nil {
		return Account{}, err
	}
	// A new account is a member of the default workspace with its own role; an admin adds it to others.
	if err := s.store.PutMembership(ctx, Membership{AccountID: a.ID, Workspace: DefaultWorkspace}); err != nil {
		return Account{}, err
	}
	s.hasAccounts.Store(true)
	return a, nil
}

// SetRole changes an account's role; by must be an admin other than the account.
func (s *Service) SetRole(ctx context.Context, by Principal, id string, role Role) error {
	if !role.Valid() {
		return fmt.Errorf("%w: choose reader, editor or admin", ErrInvalid)
	}
	return s.change(ctx, by, id, "role changed", string(role), func(a *Account) { a.Role = role })
}

// SetDisabled disables an account (its sessions end and its tokens stop working at once) or enables it
// again; by must be an admin other than the account.
func (s *Service) SetDisabled(ctx context.Context, by Principal, id string, disabled bool) error {
	action := "account enabled"
	if disabled {
		action = "account disabled"
	}
	return s.change(ctx, by, id, action, "", func(a *Account) { a.Disabled = disabled })
}

// change applies fn to an account for an admin, refusing to change the admin's own account or to leave
// the store without an enabled admin.
func (s *Service) change(ctx context.Context, by Principal, id, action, detail string, fn func(*Account)) error {
	if !by.Role.Allows(Admin) {
		return ErrForbidden
	}
	if by.Account.ID == id {
		return fmt.Errorf("%w: you cannot change your own role or disable yourself; ask another admin", ErrInvalid)
	}
	a, err := s.store.Account(ctx, id)
	if err != nil {
		return err
	}
	changed := a
	fn(&changed)
	if err := s.keepAnAdmin(ctx, a, changed); err != nil {
		return err
	}
	changed.UpdatedAt = s.now()
	if err := s.store.PutAccount(ctx, changed); err != nil {
		return err
	}
	if changed.Disabled || changed.PasswordHash != a.PasswordHash {
		if err := s.store.DeleteSessions(ctx, "", id); err != nil {
			return err
		}
	}
	s.Record(ctx, AuditEvent{Actor: by.Name(), Action: action, Target: a.Name, Detail: detail})
	return nil
}

// keepAnAdmin refuses a change that takes the last enabled admin away.
func (s *Service) keepAnAdmin(ctx context.Context, before, after Account) error {
	if before.Role != Admin || before.Disabled || after.Role == Admin && !after.Disabled {
		return nil
	}
	all, err := s.store.Accounts(ctx)
	if err != nil {
		return err
	}
	for _, a := range all {
		if a.ID != before.ID && a.Role == Admin && !a.Disabled {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is the last admin: make another account an admin first", ErrInvalid, before.Name)
}

// ChangePassword sets a new password after checking the current one. Every session of the account ends
// (other browsers signed in with the old password too); the caller's continues as a new session, whose
// cookie secret is returned.
func (s *Service) ChangePassword(ctx context.Context, p Principal, current, next, client string) (string, error) {
	if p.Local || p.SessionID == "" {
		return "", fmt.Errorf("%w: sign in with a password first", ErrInvalid)
	}
	a, err := s.store.Account(ctx, p.Account.ID)
	if err != nil {
		return "", err
	}
	ok, err := s.verify(ctx, current, a.PasswordHash)
	if err != nil {
		return "", err
	}
	if !ok {
		s.Record(ctx, AuditEvent{Actor: a.Name, Action: "password change failed", Client: client, Detail: "wrong current password"})
		return "", fmt.Errorf("%w: the current password is not right", ErrInvalid)
	}
	if err := checkPassword(next); err != nil {
		return "", err
	}
	if a.PasswordHash, err = s.hash(ctx, next); err != nil {
		return "", err
	}
	a.UpdatedAt = s.now()
	if err := s.store.PutAccount(ctx, a); err != nil {
		return "", err
	}
	if err := s.store.DeleteSessions(ctx, "", a.ID); err != nil {
		return "", err
	}
	secret, err := s.startSession(ctx, a, client)
	if err != nil {
		return "", err
	}
	s.Record(ctx, AuditEvent{Actor: a.Name, Action: "password changed", Client: client})
	return secret, nil
}

// IsInvalid reports an error a person can correct, whose message says how.
func IsInvalid(err error) bool { return errors.Is(err, ErrInvalid) || errors.Is(err, ErrNameTaken) }

// SetPassword gives another account a new password (the person forgot theirs); by must be an admin.
// Every session of that account ends; its tokens stay.
func (s *Service) SetPassword(ctx context.Context, by Principal, id, password string) error {
	if !by.Role.Allows(Admin) {
		return ErrForbidden
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	if by.Account.ID == id {
		return fmt.Errorf("%w: change your own password on your Settings page", ErrInvalid)
	}
	hash, err := s.hash(ctx, password)
	if err != nil {
		return err
	}
	return s.change(ctx, by, id, "password reset", "", func(a *Account) { a.PasswordHash = hash })
}
