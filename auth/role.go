// Package auth holds Hopwise's accounts, roles, sessions and API tokens: who may use a server that others
// can reach, and what each may do. It knows nothing of HTTP or of the knowledge store; handlers ask it who a
// request comes from, and the stores keep its records (Store).
package auth

import (
	"fmt"
	"strings"
)

// Role is what an account may do. Each role may do everything the roles below it may.
type Role string

// The roles, lowest first.
const (
	// Reader asks questions and browses documents, passages, the graph and conversations.
	Reader Role = "reader"
	// Editor also uploads, replaces, retries and deletes documents, and deletes or renames conversations.
	Editor Role = "editor"
	// Admin also manages accounts, every account's tokens and the settings, and reads the audit log.
	Admin Role = "admin"
)

// Roles lists the roles, lowest first.
var Roles = []Role{Reader, Editor, Admin}

func (r Role) rank() int {
	switch r {
	case Reader:
		return 1
	case Editor:
		return 2
	case Admin:
		return 3
	}
	return 0
}

// Allows reports whether r may do what need requires. An unknown role allows nothing.
func (r Role) Allows(need Role) bool { return r.rank() > 0 && r.rank() >= need.rank() }

// Valid reports whether r is one of Roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// ParseRole reads a role name as a form or a store holds it.
func ParseRole(s string) (Role, error) {
	r := Role(strings.ToLower(strings.TrimSpace(s)))
	if !r.Valid() {
		return "", fmt.Errorf("%w: %q is no role: choose reader, editor or admin", ErrInvalid, s)
	}
	return r, nil
}

// lower is the lesser of two roles: a token never does more than its account.
func lower(a, b Role) Role {
	if a.rank() <= b.rank() {
		return a
	}
	return b
}

// Principal is who a request comes from and the role it acts with: Role for what concerns the account
// (its tokens, managing accounts and workspaces), RoleIn (workspace.go) in a workspace.
type Principal struct {
	Account Account
	// Role is the account's role, or for a token the lower of the token's and the account's.
	Role Role
	// SessionID is set for a browser session (the stored ID, never the cookie's secret), TokenID for a token.
	SessionID, TokenID string
	// Local marks the one person of a laptop install without accounts: Admin, nobody signed in.
	Local bool

	// memberships are the account's workspaces with its role in each ("" its own); a token's role and
	// workspace bound what it does in them.
	memberships    map[string]Role
	tokenRole      Role
	tokenWorkspace string
}

// Name is how the audit log and the pages name the principal.
func (p Principal) Name() string {
	if p.Local {
		return "local user"
	}
	return p.Account.Name
}

// LocalPrincipal acts for the person at the keyboard of a laptop install where no accounts exist.
func LocalPrincipal() Principal { return Principal{Role: Admin, Local: true} }
