package web

// LoginPage is the sign-in form; Next is where a successful sign-in goes.
type LoginPage struct {
	Meta        Meta
	Next, Name  string
	Error       string
	EndedNotice bool // the person was sent here from a page: say the session ended or is needed
}

// SetupPage sets the first admin's password from the one-time link of the log.
type SetupPage struct {
	Meta               Meta
	Token, Name, Error string
}

// SettingsPage is one's own account: password and API tokens.
type SettingsPage struct {
	Meta          Meta
	Local         bool // a laptop install without accounts: nothing to set here
	Name, Role    string
	Notice, Error string
	// NewToken is a token just created, shown this once.
	NewToken, NewTokenName string
	Roles                  []string // the roles a new token may take: the account's and those below
	Tokens                 []TokenRow
	// Workspaces are those a new token may be limited to (the account's).
	Workspaces []WorkspaceOption
	// EntityTypes is the entity types setting of the workspace the page is shown in, for its admins; nil
	// for everyone else.
	EntityTypes *EntityTypesSetting
}

// EntityTypesSetting is a workspace's entity types as the settings page edits them: Types its own ("" the
// server's), Defaults the server's.
type EntityTypesSetting struct {
	Workspace, Types, Defaults string
}

// TokenRow is an API token as listed; the token itself is never shown again.
type TokenRow struct {
	ID, Name, Role, Owner string
	Workspace             string // "" every workspace of its account
	Created, Used         string
	Revoked               bool
}

// AdminPage manages accounts and tokens and shows the audit log.
type AdminPage struct {
	Meta          Meta
	Local         bool // no accounts yet: the form creates the first admin
	Notice, Error string
	Roles         []string
	Users         []UserRow
	Tokens        []TokenRow
	Audit         []AuditRow
	Workspaces    []WorkspaceRow
}

// WorkspaceRow is a workspace as the admin page lists it, with its members (admins, in every workspace,
// are listed only where they are members).
type WorkspaceRow struct {
	ID, Name string
	Members  []MemberRow
}

// MemberRow is an account's membership of a workspace; Role "" is the account's own.
type MemberRow struct{ AccountID, Name, Role string }

// UserRow is an account as the admin page lists it; Self is the admin's own (which they cannot change).
type UserRow struct {
	ID, Name, Role, Created string
	Disabled, Self          bool
}

// AuditRow is one event of the audit log.
type AuditRow struct {
	When, Actor, Action, Target, Client, Detail string
	Workspace                                   string // "" for what concerns no workspace
}
