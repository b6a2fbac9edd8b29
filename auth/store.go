package auth

import (
	"context"
	"errors"
	"time"
)

// Errors of the auth package; stores return ErrNotFound and ErrNameTaken wrapped.
var (
	ErrNotFound  = errors.New("auth: not found")
	ErrNameTaken = errors.New("auth: an account with this name exists")
	// ErrInvalid wraps input a person can correct: a weak password, a bad name or role.
	ErrInvalid = errors.New("auth: invalid")
	// ErrCredentials: wrong name or password, a disabled account, or an unknown, expired or revoked
	// session or token. The message never says which.
	ErrCredentials = errors.New("auth: not signed in")
	// ErrForbidden: the principal's role does not allow it.
	ErrForbidden = errors.New("auth: not allowed")
)

// Account is a person who signs in.
type Account struct {
	ID   string
	Name string // unique, lower case
	// PasswordHash is the argon2id hash in PHC form ($argon2id$v=19$m=...,t=...,p=...$salt$hash).
	PasswordHash string
	// Role holds in every workspace (see Principal.RoleIn).
	Role      Role
	Disabled  bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Session is a signed-in browser. Its ID is the SHA-256 of the cookie's secret, so the store never holds
// what a browser presents.
type Session struct {
	ID        string
	AccountID string
	CreatedAt time.Time // for the absolute expiry
	SeenAt    time.Time // for the idle expiry; updated at most every touchEvery
	Client    string    // the address it signed in from
}

// Token is an API token. The store keeps the SHA-256 of its secret; the token itself is shown once.
type Token struct {
	ID        string
	AccountID string
	Name      string
	Hash      string
	Role      Role // never above the account's at creation; the lower of both applies
	// Workspace is the one workspace the token acts in; "" every workspace its account is a member of.
	Workspace string
	CreatedAt time.Time
	UsedAt    time.Time // zero: never used
	RevokedAt time.Time // zero: live
}

// Revoked reports whether the token was revoked.
func (t Token) Revoked() bool { return !t.RevokedAt.IsZero() }

// AuditEvent is one line of the audit log: sign-ins (and their failures), sign-outs, account and token
// changes, uploads and deletions.
type AuditEvent struct {
	ID     string
	At     time.Time
	Actor  string // account name, or the name tried for a failed sign-in
	Action string
	Target string // what it acted on: a document or account ID, a route
	Client string
	Detail string
	// Workspace is the workspace it happened in or concerns: an upload's or deletion's, a workspace's
	// creation, deletion or membership, a token limited to one; "" for what concerns no workspace (sign-ins,
	// accounts).
	Workspace string
}

// Store keeps the records of this package. The embedded SQLite store and the Neo4j store implement it
// beside graphrag.Store, and authtest checks both against one suite. Every method is safe for concurrent use.
type Store interface {
	// PutAccount creates an account or replaces the one with its ID; a name another account holds is
	// ErrNameTaken.
	PutAccount(ctx context.Context, a Account) error
	// Account returns an account by ID, AccountNamed by name; ErrNotFound otherwise.
	Account(ctx context.Context, id string) (Account, error)
	AccountNamed(ctx context.Context, name string) (Account, error)
	// Accounts lists every account by name.
	Accounts(ctx context.Context) ([]Account, error)

	// PutSession creates a session or replaces the one with its ID.
	PutSession(ctx context.Context, s Session) error
	// TouchSession moves an existing session's SeenAt forward to seenAt; a session already deleted stays
	// deleted (a sign-out racing with a request is never undone).
	TouchSession(ctx context.Context, id string, seenAt time.Time) error
	// Session returns a session by ID, or ErrNotFound.
	Session(ctx context.Context, id string) (Session, error)
	// DeleteSessions removes the session with this ID, or with accountID set every session of that
	// account; gone ones are no error.
	DeleteSessions(ctx context.Context, id, accountID string) error
	// PurgeSessions removes the sessions last seen before seenBefore or created before createdBefore and
	// says how many.
	PurgeSessions(ctx context.Context, seenBefore, createdBefore time.Time) (int, error)

	// PutToken creates a token or replaces the one with its ID, except that a revoked token stays revoked
	// (its RevokedAt is never cleared or moved), so recording a use cannot undo a revocation.
	PutToken(ctx context.Context, t Token) error
	// Token returns a token by ID, or ErrNotFound.
	Token(ctx context.Context, id string) (Token, error)
	// Tokens lists the tokens of an account ("" every account's), newest first.
	Tokens(ctx context.Context, accountID string) ([]Token, error)

	// PutWorkspace creates a workspace or replaces the name and entity types of the one with its ID (its
	// CreatedAt stays); Workspaces lists every workspace by ID. A store has the DefaultWorkspace from its
	// start (or its migration to workspaces).
	PutWorkspace(ctx context.Context, w Workspace) error
	Workspaces(ctx context.Context) ([]Workspace, error)
	// DeleteWorkspace removes a workspace's record, its memberships and the tokens limited to it; a
	// workspace gone is no error. Its documents are the graph store's (graphrag.WorkspaceDropper); the
	// audit log keeps what happened in it.
	DeleteWorkspace(ctx context.Context, id string) error
	// PutMembership makes an account a member of a workspace or changes its role there; DeleteMembership
	// ends it (a membership gone is no error); Memberships lists an account's ("" every account's), by
	// workspace then account. Deleting an account ends its memberships.
	PutMembership(ctx context.Context, m Membership) error
	DeleteMembership(ctx context.Context, accountID, workspace string) error
	Memberships(ctx context.Context, accountID string) ([]Membership, error)

	// AppendAudit adds an event to the audit log.
	AppendAudit(ctx context.Context, e AuditEvent) error
	// Audit returns the latest limit events, newest first.
	Audit(ctx context.Context, limit int) ([]AuditEvent, error)
}
