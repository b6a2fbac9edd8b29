package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/auth"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The workspaces and memberships of package auth are nodes shared by every workspace (globalLabels):
// Workspace (id unique) and Membership (key accountId/workspace unique). A token's workspace is a
// property of its ApiToken.
var workspaceSchemaStatements = []string{
	"CREATE CONSTRAINT workspace_id IF NOT EXISTS FOR (n:Workspace) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT membership_key IF NOT EXISTS FOR (n:Membership) REQUIRE n.key IS UNIQUE",
	"CREATE INDEX membership_account IF NOT EXISTS FOR (n:Membership) ON (n.accountId)",
}

// ensureDefaultWorkspace creates the default workspace of a database that has none (new, or from before
// workspaces: its graph is the default workspace's) and makes every existing account a member of it with
// its own role, so everybody keeps what they could do. It runs once: a database with the default
// workspace is left as it is, memberships an admin ended included.
func (s *Store) ensureDefaultWorkspace(ctx context.Context) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `OPTIONAL MATCH (w:Workspace {id: $id})
			WITH w WHERE w IS NULL
			CREATE (:Workspace {id: $id, name: 'Default'})
			WITH 1 AS created
			MATCH (a:Account)
			MERGE (m:Membership {key: a.id + '/' + $id})
			ON CREATE SET m.accountId = a.id, m.workspace = $id, m.role = ''`, map[string]any{"id": auth.DefaultWorkspace})
	})
	if err != nil {
		return fmt.Errorf("neo4j: create the default workspace: %w", err)
	}
	return nil
}

// PutWorkspace creates a workspace or replaces the name and entity types of the one with its ID.
func (s *Store) PutWorkspace(ctx context.Context, w auth.Workspace) error {
	return s.authWrite(ctx, "put workspace", `MERGE (n:Workspace {id: $id}) ON CREATE SET n.createdAt = $created
		SET n.name = $wsName, n.entityTypes = $types`,
		map[string]any{"id": w.ID, "wsName": w.Name, "created": optional(w.CreatedAt), "types": w.EntityTypes})
}

// DeleteWorkspace removes a workspace's record, its memberships and the tokens limited to it, in one
// transaction.
func (s *Store) DeleteWorkspace(ctx context.Context, id string) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		for _, q := range []string{`MATCH (m:Membership {workspace: $id}) DELETE m`, `MATCH (t:ApiToken {workspace: $id}) DELETE t`,
			`MATCH (w:Workspace {id: $id}) DELETE w`} {
			if err := exec(ctx, tx, q, map[string]any{"id": id}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("neo4j: delete workspace %s: %w", id, err)
	}
	return nil
}

// Workspaces lists every workspace by ID.
func (s *Store) Workspaces(ctx context.Context) ([]auth.Workspace, error) {
	out, err := readNodes(ctx, s, `MATCH (n:Workspace) RETURN n {.*} ORDER BY n.id`, nil, func(m map[string]any) auth.Workspace {
		return auth.Workspace{ID: asString(m["id"]), Name: asString(m["name"]), EntityTypes: asString(m["entityTypes"]), CreatedAt: asTime(m["createdAt"])}
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: workspaces: %w", err)
	}
	return out, nil
}

// PutMembership makes an account a member of a workspace or changes its role there.
func (s *Store) PutMembership(ctx context.Context, m auth.Membership) error {
	return s.authWrite(ctx, "put membership", `MERGE (n:Membership {key: $key})
		SET n.accountId = $account, n.workspace = $workspace, n.role = $role`,
		map[string]any{"key": m.AccountID + "/" + m.Workspace, "account": m.AccountID, "workspace": m.Workspace, "role": string(m.Role)})
}

// DeleteMembership ends a membership.
func (s *Store) DeleteMembership(ctx context.Context, accountID, workspace string) error {
	return s.authWrite(ctx, "delete membership", `MATCH (n:Membership {key: $key}) DELETE n`,
		map[string]any{"key": accountID + "/" + workspace})
}

// Memberships lists an account's memberships (every account's for ""), by workspace then account.
func (s *Store) Memberships(ctx context.Context, accountID string) ([]auth.Membership, error) {
	out, err := readNodes(ctx, s, `MATCH (n:Membership) WHERE $account = '' OR n.accountId = $account
		RETURN n {.*} ORDER BY n.workspace, n.accountId`, map[string]any{"account": accountID}, func(m map[string]any) auth.Membership {
		return auth.Membership{AccountID: asString(m["accountId"]), Workspace: asString(m["workspace"]), Role: auth.Role(asString(m["role"]))}
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: memberships: %w", err)
	}
	return out, nil
}
