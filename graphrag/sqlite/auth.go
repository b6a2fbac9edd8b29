package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hopwise/hopwise/auth"
)

// authSchema is the migration that adds the auth package's records: accounts, browser sessions (by the
// hash of their cookie), API tokens (by the hash of their secret) and the audit log. Times are Unix
// nanoseconds, 0 for none.
const authSchema = `
CREATE TABLE accounts (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL UNIQUE,
	password   TEXT NOT NULL,
	role       TEXT NOT NULL,
	disabled   INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE TABLE sessions (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	seen_at    INTEGER NOT NULL,
	client     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_account ON sessions(account_id);
CREATE TABLE api_tokens (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	hash       TEXT NOT NULL,
	role       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	used_at    INTEGER NOT NULL DEFAULT 0,
	revoked_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX api_tokens_account ON api_tokens(account_id, created_at);
CREATE TABLE audit (
	seq    INTEGER PRIMARY KEY,
	id     TEXT NOT NULL UNIQUE,
	at     INTEGER NOT NULL,
	actor  TEXT NOT NULL,
	action TEXT NOT NULL,
	target TEXT NOT NULL DEFAULT '',
	client TEXT NOT NULL DEFAULT '',
	detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_at ON audit(at);
`

var _ auth.Store = (*Store)(nil)

// nanos is t in Unix nanoseconds, 0 for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// optionalTime reads what nanos wrote.
func optionalTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return fromNanos(n)
}

// PutAccount creates an account or replaces the one with its ID.
func (s *Store) PutAccount(ctx context.Context, a auth.Account) error {
	err := s.write(ctx, "put account", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO accounts (id, name, password, role, disabled, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, password = excluded.password, role = excluded.role,
				disabled = excluded.disabled, updated_at = excluded.updated_at`,
			a.ID, a.Name, a.PasswordHash, string(a.Role), a.Disabled, nanos(a.CreatedAt), nanos(a.UpdatedAt))
		return err
	})
	if err != nil && strings.Contains(err.Error(), "UNIQUE constraint failed: accounts.name") {
		return fmt.Errorf("sqlite: put account %q: %w", a.Name, auth.ErrNameTaken)
	}
	if err != nil {
		return fmt.Errorf("sqlite: put account %q: %w", a.Name, err)
	}
	return nil
}

const accountColumns = `SELECT id, name, password, role, disabled, created_at, updated_at FROM accounts`

// Account returns an account by ID.
func (s *Store) Account(ctx context.Context, id string) (auth.Account, error) {
	return s.oneAccount(ctx, "id", id)
}

// AccountNamed returns an account by name.
func (s *Store) AccountNamed(ctx context.Context, name string) (auth.Account, error) {
	return s.oneAccount(ctx, "name", name)
}

func (s *Store) oneAccount(ctx context.Context, column, value string) (auth.Account, error) {
	a, err := scanAccount(s.reader.QueryRowContext(ctx, accountColumns+` WHERE `+column+` = ?`, value))
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Account{}, fmt.Errorf("sqlite: account %s %q: %w", column, value, auth.ErrNotFound)
	}
	if err != nil {
		return auth.Account{}, fmt.Errorf("sqlite: account %s %q: %w", column, value, err)
	}
	return a, nil
}

// Accounts lists every account by name.
func (s *Store) Accounts(ctx context.Context) ([]auth.Account, error) {
	rows, err := s.reader.QueryContext(ctx, accountColumns+` ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: accounts: %w", err)
	}
	out, err := scanAll(rows, scanAccount)
	if err != nil {
		return nil, fmt.Errorf("sqlite: accounts: %w", err)
	}
	return out, nil
}

func scanAccount(row scanner) (auth.Account, error) {
	var a auth.Account
	var role string
	var created, updated int64
	err := row.Scan(&a.ID, &a.Name, &a.PasswordHash, &role, &a.Disabled, &created, &updated)
	a.Role, a.CreatedAt, a.UpdatedAt = auth.Role(role), optionalTime(created), optionalTime(updated)
	return a, err
}

// scanAll reads every row with scan and closes rows.
func scanAll[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// PutSession creates a session or replaces the one with its ID.
func (s *Store) PutSession(ctx context.Context, se auth.Session) error {
	err := s.write(ctx, "put session", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO sessions (id, account_id, created_at, seen_at, client)
			VALUES (?, ?, ?, ?, ?)`, se.ID, se.AccountID, nanos(se.CreatedAt), nanos(se.SeenAt), se.Client)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: put session: %w", err)
	}
	return nil
}

// TouchSession moves an existing session's SeenAt forward.
func (s *Store) TouchSession(ctx context.Context, id string, seenAt time.Time) error {
	return s.authExec(ctx, "touch session", `UPDATE sessions SET seen_at = max(seen_at, ?) WHERE id = ?`, nanos(seenAt), id)
}

// Session returns a session by ID.
func (s *Store) Session(ctx context.Context, id string) (auth.Session, error) {
	var se auth.Session
	var created, seen int64
	err := s.reader.QueryRowContext(ctx, `SELECT id, account_id, created_at, seen_at, client FROM sessions WHERE id = ?`, id).
		Scan(&se.ID, &se.AccountID, &created, &seen, &se.Client)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Session{}, fmt.Errorf("sqlite: session: %w", auth.ErrNotFound)
	}
	if err != nil {
		return auth.Session{}, fmt.Errorf("sqlite: session: %w", err)
	}
	se.CreatedAt, se.SeenAt = optionalTime(created), optionalTime(seen)
	return se, nil
}

// DeleteSessions removes one session by ID, or every session of an account.
func (s *Store) DeleteSessions(ctx context.Context, id, accountID string) error {
	if id != "" {
		return s.authExec(ctx, "delete session", `DELETE FROM sessions WHERE id = ?`, id)
	}
	return s.authExec(ctx, "delete sessions", `DELETE FROM sessions WHERE account_id = ?`, accountID)
}

// PurgeSessions removes the sessions idle or old past the cutoffs.
func (s *Store) PurgeSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int, error) {
	var n int64
	err := s.write(ctx, "purge sessions", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE seen_at < ? OR created_at < ?`, nanos(seenBefore), nanos(createdBefore))
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: purge sessions: %w", err)
	}
	return int(n), nil
}

// PutToken creates a token or replaces the one with its ID; a revocation stays.
func (s *Store) PutToken(ctx context.Context, t auth.Token) error {
	return s.authExec(ctx, "put token", `INSERT INTO api_tokens (id, account_id, name, hash, role, created_at, used_at, revoked_at, workspace)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, role = excluded.role, used_at = excluded.used_at,
			revoked_at = CASE WHEN api_tokens.revoked_at <> 0 THEN api_tokens.revoked_at ELSE excluded.revoked_at END`,
		t.ID, t.AccountID, t.Name, t.Hash, string(t.Role), nanos(t.CreatedAt), nanos(t.UsedAt), nanos(t.RevokedAt), t.Workspace)
}

const tokenColumns = `SELECT id, account_id, name, hash, role, created_at, used_at, revoked_at, workspace FROM api_tokens`

// Token returns a token by ID.
func (s *Store) Token(ctx context.Context, id string) (auth.Token, error) {
	t, err := scanToken(s.reader.QueryRowContext(ctx, tokenColumns+` WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Token{}, fmt.Errorf("sqlite: token %q: %w", id, auth.ErrNotFound)
	}
	if err != nil {
		return auth.Token{}, fmt.Errorf("sqlite: token %q: %w", id, err)
	}
	return t, nil
}

// Tokens lists an account's tokens (every account's for ""), newest first.
func (s *Store) Tokens(ctx context.Context, accountID string) ([]auth.Token, error) {
	rows, err := s.reader.QueryContext(ctx, tokenColumns+` WHERE ? = '' OR account_id = ? ORDER BY created_at DESC, id`, accountID, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: tokens: %w", err)
	}
	out, err := scanAll(rows, scanToken)
	if err != nil {
		return nil, fmt.Errorf("sqlite: tokens: %w", err)
	}
	return out, nil
}

func scanToken(row scanner) (auth.Token, error) {
	var t auth.Token
	var role string
	var created, used, revoked int64
	err := row.Scan(&t.ID, &t.AccountID, &t.Name, &t.Hash, &role, &created, &used, &revoked, &t.Workspace)
	t.Role, t.CreatedAt, t.UsedAt, t.RevokedAt = auth.Role(role), optionalTime(created), optionalTime(used), optionalTime(revoked)
	return t, err
}

// AppendAudit adds an event to the audit log.
func (s *Store) AppendAudit(ctx context.Context, e auth.AuditEvent) error {
	return s.authExec(ctx, "append audit", `INSERT OR IGNORE INTO audit (id, at, actor, action, target, client, detail, workspace)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, nanos(e.At), e.Actor, e.Action, e.Target, e.Client, e.Detail, e.Workspace)
}

// Audit returns the latest limit events, newest first.
func (s *Store) Audit(ctx context.Context, limit int) ([]auth.AuditEvent, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, at, actor, action, target, client, detail, workspace FROM audit
		ORDER BY at DESC, seq DESC LIMIT ?`, max(limit, 0))
	if err != nil {
		return nil, fmt.Errorf("sqlite: audit: %w", err)
	}
	out, err := scanAll(rows, func(row scanner) (auth.AuditEvent, error) {
		var e auth.AuditEvent
		var at int64
		err := row.Scan(&e.ID, &at, &e.Actor, &e.Action, &e.Target, &e.Client, &e.Detail, &e.Workspace)
		e.At = optionalTime(at)
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: audit: %w", err)
	}
	return out, nil
}

// authExec runs one statement in a write transaction.
func (s *Store) authExec(ctx context.Context, op, query string, args ...any) error {
	err := s.write(ctx, op, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	return nil
}
