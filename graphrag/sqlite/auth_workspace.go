package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hopwise/hopwise/auth"
)

// workspaceSchema is the migration to workspaces: the workspaces (the default one, which is what the file
// held before, among them), the accounts' memberships (every existing account joins the default workspace
// with its own role, so everybody keeps what they could do) and the workspace an API token is limited to
// (” every workspace of its account, as every token was before). A workspace's documents live in its own
// file (workspace.go); in a workspace's file these tables stay empty but for the default row.
const workspaceSchema = `
CREATE TABLE workspaces (
	id         TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	created_at INTEGER NOT NULL
);
INSERT INTO workspaces (id, name, created_at) VALUES ('default', 'Default', 0);
CREATE TABLE memberships (
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	workspace  TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
	role       TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (account_id, workspace)
) WITHOUT ROWID;
CREATE INDEX memberships_workspace ON memberships(workspace);
INSERT INTO memberships (account_id, workspace, role) SELECT id, 'default', '' FROM accounts;
ALTER TABLE api_tokens ADD COLUMN workspace TEXT NOT NULL DEFAULT '';
`

// workspaceSettingsSchema is the migration that gives each workspace its entity types (” the server's) and
// each audit event the workspace it happened in (” for those of no workspace, and for those before this).
const workspaceSettingsSchema = `
ALTER TABLE workspaces ADD COLUMN entity_types TEXT NOT NULL DEFAULT '';
ALTER TABLE audit ADD COLUMN workspace TEXT NOT NULL DEFAULT '';
`

// PutWorkspace creates a workspace or replaces the name and entity types of the one with its ID.
func (s *Store) PutWorkspace(ctx context.Context, w auth.Workspace) error {
	return s.authExec(ctx, "put workspace", `INSERT INTO workspaces (id, name, created_at, entity_types) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET name = excluded.name, entity_types = excluded.entity_types`,
		w.ID, w.Name, nanos(w.CreatedAt), w.EntityTypes)
}

// DeleteWorkspace removes a workspace's record, its memberships and the tokens limited to it, in one
// transaction.
func (s *Store) DeleteWorkspace(ctx context.Context, id string) error {
	err := s.write(ctx, "delete workspace", func(tx *sql.Tx) error {
		for _, q := range []string{`DELETE FROM memberships WHERE workspace = ?`, `DELETE FROM api_tokens WHERE workspace = ?`,
			`DELETE FROM workspaces WHERE id = ?`} {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete workspace %s: %w", id, err)
	}
	return nil
}

// Workspaces lists every workspace by ID.
func (s *Store) Workspaces(ctx context.Context) ([]auth.Workspace, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, name, created_at, entity_types FROM workspaces ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: workspaces: %w", err)
	}
	out, err := scanAll(rows, func(row scanner) (auth.Workspace, error) {
		var w auth.Workspace
		var created int64
		err := row.Scan(&w.ID, &w.Name, &created, &w.EntityTypes)
		w.CreatedAt = optionalTime(created)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: workspaces: %w", err)
	}
	return out, nil
}

// PutMembership makes an account a member of a workspace or changes its role there.
func (s *Store) PutMembership(ctx context.Context, m auth.Membership) error {
	return s.authExec(ctx, "put membership", `INSERT INTO memberships (account_id, workspace, role) VALUES (?, ?, ?)
		ON CONFLICT (account_id, workspace) DO UPDATE SET role = excluded.role`, m.AccountID, m.Workspace, string(m.Role))
}

// DeleteMembership ends a membership.
func (s *Store) DeleteMembership(ctx context.Context, accountID, workspace string) error {
	return s.authExec(ctx, "delete membership", `DELETE FROM memberships WHERE account_id = ? AND workspace = ?`, accountID, workspace)
}

// Memberships lists an account's memberships (every account's for ""), by workspace then account.
func (s *Store) Memberships(ctx context.Context, accountID string) ([]auth.Membership, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT account_id, workspace, role FROM memberships
		WHERE ? = '' OR account_id = ? ORDER BY workspace, account_id`, accountID, accountID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: memberships: %w", err)
	}
	out, err := scanAll(rows, func(row scanner) (auth.Membership, error) {
		var m auth.Membership
		var role string
		err := row.Scan(&m.AccountID, &m.Workspace, &role)
		m.Role = auth.Role(role)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite: memberships: %w", err)
	}
	return out, nil
}
