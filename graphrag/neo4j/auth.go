package neo4j

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/auth"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The auth package's records are nodes without edges, keyed by id: Account (name unique too), Session
// (id: the hash of its cookie), ApiToken (hash of its secret) and AuditEvent. Absent times are null.
var authSchemaStatements = []string{
	"CREATE CONSTRAINT account_id IF NOT EXISTS FOR (n:Account) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT account_name IF NOT EXISTS FOR (n:Account) REQUIRE n.name IS UNIQUE",
	"CREATE CONSTRAINT session_id IF NOT EXISTS FOR (n:Session) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT api_token_id IF NOT EXISTS FOR (n:ApiToken) REQUIRE n.id IS UNIQUE",
	"CREATE CONSTRAINT audit_event_id IF NOT EXISTS FOR (n:AuditEvent) REQUIRE n.id IS UNIQUE",
	"CREATE INDEX session_account IF NOT EXISTS FOR (n:Session) ON (n.accountId)",
	"CREATE INDEX api_token_account IF NOT EXISTS FOR (n:ApiToken) ON (n.accountId)",
	"CREATE INDEX audit_event_at IF NOT EXISTS FOR (n:AuditEvent) ON (n.at)",
}

var _ auth.Store = (*Store)(nil)

// optional is t for a property, nil for the zero time.
func optional(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// PutAccount creates an account or replaces the one with its ID; the name constraint refuses a name
// another account holds.
func (s *Store) PutAccount(ctx context.Context, a auth.Account) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		taken, err := query(ctx, tx, `MATCH (o:Account {name: $name}) WHERE o.id <> $id RETURN o.id`,
			map[string]any{"name": a.Name, "id": a.ID})
		if err != nil {
			return err
		}
		if len(taken) > 0 {
			return auth.ErrNameTaken
		}
		return exec(ctx, tx, `MERGE (a:Account {id: $id})
			ON CREATE SET a.createdAt = $created
			SET a.name = $name, a.password = $password, a.role = $role, a.disabled = $disabled, a.updatedAt = $updated`,
			map[string]any{"id": a.ID, "name": a.Name, "password": a.PasswordHash, "role": string(a.Role),
				"disabled": a.Disabled, "created": optional(a.CreatedAt), "updated": optional(a.UpdatedAt)})
	})
	if isConstraint(err) {
		err = auth.ErrNameTaken
	}
	if err != nil {
		return fmt.Errorf("neo4j: put account %q: %w", a.Name, err)
	}
	return nil
}

// Account returns an account by ID.
func (s *Store) Account(ctx context.Context, id string) (auth.Account, error) {
	return s.oneAccount(ctx, "id", id)
}

// AccountNamed returns an account by name.
func (s *Store) AccountNamed(ctx context.Context, name string) (auth.Account, error) {
	return s.oneAccount(ctx, "name", name)
}

func (s *Store) oneAccount(ctx context.Context, key, value string) (auth.Account, error) {
	list, err := s.accounts(ctx, `MATCH (a:Account {`+key+`: $v}) RETURN a {.*}`, map[string]any{"v": value})
	if err != nil {
		return auth.Account{}, fmt.Errorf("neo4j: account %s %q: %w", key, value, err)
	}
	if len(list) == 0 {
		return auth.Account{}, fmt.Errorf("neo4j: account %s %q: %w", key, value, auth.ErrNotFound)
	}
	return list[0], nil
}

// Accounts lists every account by name.
func (s *Store) Accounts(ctx context.Context) ([]auth.Account, error) {
	list, err := s.accounts(ctx, `MATCH (a:Account) RETURN a {.*} ORDER BY a.name`, nil)
	if err != nil {
		return nil, fmt.Errorf("neo4j: accounts: %w", err)
	}
	return list, nil
}

func (s *Store) accounts(ctx context.Context, cypher string, params map[string]any) ([]auth.Account, error) {
	return readNodes(ctx, s, cypher, params, func(m map[string]any) auth.Account {
		return auth.Account{
			ID: asString(m["id"]), Name: asString(m["name"]), PasswordHash: asString(m["password"]),
			Role: auth.Role(asString(m["role"])), Disabled: m["disabled"] == true,
			CreatedAt: asTime(m["createdAt"]), UpdatedAt: asTime(m["updatedAt"]),
		}
	})
}

// readNodes runs a read whose one column is a node's map projection and converts each row with conv.
func readNodes[T any](ctx context.Context, s *Store, cypher string, params map[string]any, conv func(map[string]any) T) ([]T, error) {
	var out []T
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, cypher, params)
		if err != nil {
			return err
		}
		out = make([]T, 0, len(records))
		for _, v := range column(records) {
			out = append(out, conv(asMap(v)))
		}
		return nil
	})
	return out, err
}

// PutSession creates a session or replaces the one with its ID.
func (s *Store) PutSession(ctx context.Context, se auth.Session) error {
	return s.authWrite(ctx, "put session", `MERGE (n:Session {id: $id})
		SET n.accountId = $account, n.createdAt = $created, n.seenAt = $seen, n.client = $client`,
		map[string]any{"id": se.ID, "account": se.AccountID, "created": optional(se.CreatedAt), "seen": optional(se.SeenAt), "client": se.Client})
}

// TouchSession moves an existing session's SeenAt forward; MATCH never creates one.
func (s *Store) TouchSession(ctx context.Context, id string, seenAt time.Time) error {
	return s.authWrite(ctx, "touch session", `MATCH (n:Session {id: $id})
		SET n.seenAt = CASE WHEN n.seenAt > $seen THEN n.seenAt ELSE $seen END`,
		map[string]any{"id": id, "seen": optional(seenAt)})
}

// Session returns a session by ID.
func (s *Store) Session(ctx context.Context, id string) (auth.Session, error) {
	list, err := readNodes(ctx, s, `MATCH (n:Session {id: $id}) RETURN n {.*}`, map[string]any{"id": id}, func(m map[string]any) auth.Session {
		return auth.Session{ID: asString(m["id"]), AccountID: asString(m["accountId"]), CreatedAt: asTime(m["createdAt"]),
			SeenAt: asTime(m["seenAt"]), Client: asString(m["client"])}
	})
	if err != nil {
		return auth.Session{}, fmt.Errorf("neo4j: session: %w", err)
	}
	if len(list) == 0 {
		return auth.Session{}, fmt.Errorf("neo4j: session: %w", auth.ErrNotFound)
	}
	return list[0], nil
}

// DeleteSessions removes one session by ID, or every session of an account.
func (s *Store) DeleteSessions(ctx context.Context, id, accountID string) error {
	if id != "" {
		return s.authWrite(ctx, "delete session", `MATCH (n:Session {id: $id}) DELETE n`, map[string]any{"id": id})
	}
	return s.authWrite(ctx, "delete sessions", `MATCH (n:Session {accountId: $account}) DELETE n`, map[string]any{"account": accountID})
}

// PurgeSessions removes the sessions idle or old past the cutoffs.
func (s *Store) PurgeSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int, error) {
	var n int
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (n:Session) WHERE n.seenAt < $seen OR n.createdAt < $created
			DELETE n RETURN count(*)`, map[string]any{"seen": seenBefore.UTC(), "created": createdBefore.UTC()})
		if err != nil {
			return err
		}
		n = asInt(first(records))
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("neo4j: purge sessions: %w", err)
	}
	return n, nil
}

// PutToken creates a token or replaces the one with its ID; a revocation stays.
func (s *Store) PutToken(ctx context.Context, t auth.Token) error {
	return s.authWrite(ctx, "put token", `MERGE (n:ApiToken {id: $id})
		ON CREATE SET n.accountId = $account, n.hash = $hash, n.createdAt = $created, n.workspace = $workspace
		SET n.name = $name, n.role = $role, n.usedAt = $used, n.revokedAt = coalesce(n.revokedAt, $revoked)`,
		map[string]any{"id": t.ID, "account": t.AccountID, "hash": t.Hash, "created": optional(t.CreatedAt), "workspace": t.Workspace,
			"name": t.Name, "role": string(t.Role), "used": optional(t.UsedAt), "revoked": optional(t.RevokedAt)})
}

// Token returns a token by ID.
func (s *Store) Token(ctx context.Context, id string) (auth.Token, error) {
	list, err := s.tokens(ctx, `MATCH (n:ApiToken {id: $id}) RETURN n {.*}`, map[string]any{"id": id})
	if err != nil {
		return auth.Token{}, fmt.Errorf("neo4j: token %q: %w", id, err)
	}
	if len(list) == 0 {
		return auth.Token{}, fmt.Errorf("neo4j: token %q: %w", id, auth.ErrNotFound)
	}
	return list[0], nil
}

// Tokens lists an account's tokens (every account's for ""), newest first.
func (s *Store) Tokens(ctx context.Context, accountID string) ([]auth.Token, error) {
	list, err := s.tokens(ctx, `MATCH (n:ApiToken) WHERE $account = '' OR n.accountId = $account
		RETURN n {.*} ORDER BY n.createdAt DESC, n.id`, map[string]any{"account": accountID})
	if err != nil {
		return nil, fmt.Errorf("neo4j: tokens: %w", err)
	}
	return list, nil
}

func (s *Store) tokens(ctx context.Context, cypher string, params map[string]any) ([]auth.Token, error) {
	return readNodes(ctx, s, cypher, params, func(m map[string]any) auth.Token {
		return auth.Token{
			ID: asString(m["id"]), AccountID: asString(m["accountId"]), Name: asString(m["name"]), Hash: asString(m["hash"]),
			Role: auth.Role(asString(m["role"])), CreatedAt: asTime(m["createdAt"]), UsedAt: asTime(m["usedAt"]),
			RevokedAt: asTime(m["revokedAt"]), Workspace: asString(m["workspace"]),
		}
	})
}

// AppendAudit adds an event to the audit log; the same ID twice is one event.
func (s *Store) AppendAudit(ctx context.Context, e auth.AuditEvent) error {
	return s.authWrite(ctx, "append audit", `MERGE (n:AuditEvent {id: $id})
		ON CREATE SET n.at = $at, n.actor = $actor, n.action = $action, n.target = $target, n.client = $client, n.detail = $detail,
			n.workspace = $workspace`,
		map[string]any{"id": e.ID, "at": optional(e.At), "actor": e.Actor, "action": e.Action, "target": e.Target,
			"client": e.Client, "detail": e.Detail, "workspace": e.Workspace})
}

// Audit returns the latest limit events, newest first.
func (s *Store) Audit(ctx context.Context, limit int) ([]auth.AuditEvent, error) {
	out, err := readNodes(ctx, s, `MATCH (n:AuditEvent) RETURN n {.*} ORDER BY n.at DESC, n.id DESC LIMIT $limit`,
		map[string]any{"limit": max(limit, 0)}, func(m map[string]any) auth.AuditEvent {
			return auth.AuditEvent{ID: asString(m["id"]), At: asTime(m["at"]), Actor: asString(m["actor"]),
				Action: asString(m["action"]), Target: asString(m["target"]), Client: asString(m["client"]), Detail: asString(m["detail"]),
				Workspace: asString(m["workspace"])}
		})
	if err != nil {
		return nil, fmt.Errorf("neo4j: audit: %w", err)
	}
	return out, nil
}

// authWrite runs one statement in a write transaction.
func (s *Store) authWrite(ctx context.Context, op, cypher string, params map[string]any) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, cypher, params)
	})
	if err != nil {
		return fmt.Errorf("neo4j: %s: %w", op, err)
	}
	return nil
}

// isConstraint reports a uniqueness constraint refusing a write (two accounts created with one name at once).
func isConstraint(err error) bool {
	var dbErr *neo4j.Neo4jError
	return errors.As(err, &dbErr) && dbErr.Code == "Neo.ClientError.Schema.ConstraintValidationFailed"
}
