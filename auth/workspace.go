package auth

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DefaultWorkspace is the workspace every store has (graphrag.DefaultWorkspace): what a store held before
// workspaces, and the one accounts join when they are created.
const DefaultWorkspace = "default"

// Workspace is a set of documents with their graph, conversations and jobs, separate from every other
// workspace's. Its ID names it in the store (graphrag.CheckWorkspaceID accepts the same IDs).
type Workspace struct {
	ID   string
	Name string // what the pages show
	// EntityTypes are the kinds of entity its extraction asks for, comma-separated and normalised
	// (graphrag.ParseEntityTypes); "" the server's (ENTITY_TYPES, else graphrag.DefaultEntityTypes).
	EntityTypes string
	CreatedAt   time.Time
}

// Membership makes an account a member of a workspace with a role there; Role "" is the account's own role.
type Membership struct {
	AccountID string
	Workspace string
	Role      Role
}

var workspaceIDPattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// CheckWorkspaceID accepts a lower-case letter, then up to 31 lower-case letters, digits and '_'.
func CheckWorkspaceID(id string) error {
	if !workspaceIDPattern.MatchString(id) {
		return fmt.Errorf("%w: a workspace ID is a lower-case letter, then lower-case letters, digits or '_' (at most 32), got %q", ErrInvalid, id)
	}
	return nil
}

// RoleIn is the role the principal acts with in a workspace, "" when it may not enter it: admins act as
// admins in every workspace; another account acts with its role in each workspace it is a member of (the
// membership's role, or its own when the membership names none); a token acts with the lower of that and
// its own role, and only in its workspace when it names one. The local user of a laptop install is admin
// everywhere.
func (p Principal) RoleIn(workspace string) Role {
	if p.Local {
		return Admin
	}
	if p.tokenWorkspace != "" && workspace != p.tokenWorkspace {
		return ""
	}
	var r Role
	switch m, member := p.memberships[workspace]; {
	case p.Account.Role == Admin:
		r = Admin
	case !member:
		return ""
	case m == "":
		r = p.Account.Role
	default:
		r = m
	}
	if p.TokenID != "" {
		r = lower(r, p.tokenRole)
	}
	return r
}

// InWorkspaces lists the IDs of the workspaces among all that the principal may enter.
func (p Principal) InWorkspaces(all []Workspace) []Workspace {
	var out []Workspace
	for _, w := range all {
		if p.RoleIn(w.ID) != "" {
			out = append(out, w)
		}
	}
	return out
}

// TokenWorkspace is the workspace a token principal is limited to, "" for none.
func (p Principal) TokenWorkspace() string { return p.tokenWorkspace }

// withMemberships reads the account's memberships into p.
func (s *Service) withMemberships(ctx context.Context, p Principal) (Principal, error) {
	ms, err := s.store.Memberships(ctx, p.Account.ID)
	if err != nil {
		return Principal{}, fmt.Errorf("auth: memberships: %w", err)
	}
	p.memberships = make(map[string]Role, len(ms))
	for _, m := range ms {
		p.memberships[m.Workspace] = m.Role
	}
	return p, nil
}

// Workspaces lists every workspace by ID.
func (s *Service) Workspaces(ctx context.Context) ([]Workspace, error) {
	return s.store.Workspaces(ctx)
}

// Workspace returns the workspace with this ID, or ErrNotFound.
func (s *Service) Workspace(ctx context.Context, id string) (Workspace, error) {
	all, err := s.store.Workspaces(ctx)
	if err != nil {
		return Workspace{}, err
	}
	if i := slices.IndexFunc(all, func(w Workspace) bool { return w.ID == id }); i >= 0 {
		return all[i], nil
	}
	return Workspace{}, fmt.Errorf("auth: workspace %q: %w", id, ErrNotFound)
}

// CreateWorkspace adds a workspace named name with this ID; by must be an admin. An ID taken is ErrInvalid.
func (s *Service) CreateWorkspace(ctx context.Context, by Principal, id, name string) (Workspace, error) {
	if !by.Role.Allows(Admin) {
		return Workspace{}, ErrForbidden
	}
	id = strings.TrimSpace(id)
	if err := CheckWorkspaceID(id); err != nil {
		return Workspace{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 100 {
		return Workspace{}, fmt.Errorf("%w: give the workspace a name of 1 to 100 characters", ErrInvalid)
	}
	if _, err := s.Workspace(ctx, id); err == nil {
		return Workspace{}, fmt.Errorf("%w: a workspace with the ID %q exists", ErrInvalid, id)
	}
	w := Workspace{ID: id, Name: name, CreatedAt: s.now()}
	if err := s.store.PutWorkspace(ctx, w); err != nil {
		return Workspace{}, err
	}
	s.Record(ctx, AuditEvent{Actor: by.Name(), Action: "workspace created", Target: id, Detail: name, Workspace: id})
	return w, nil
}

// Memberships lists every membership ("" accountID) or one account's; by must be an admin for another's.
func (s *Service) Memberships(ctx context.Context, by Principal, accountID string) ([]Membership, error) {
	if accountID != by.Account.ID && !by.Role.Allows(Admin) {
		return nil, ErrForbidden
	}
	return s.store.Memberships(ctx, accountID)
}

// SetMembership makes an account a member of a workspace with role there ("" its own role), or with
// remove set ends its membership; by must be an admin.
func (s *Service) SetMembership(ctx context.Context, by Principal, accountID, workspace string, role Role, remove bool) error {
	if !by.Role.Allows(Admin) {
		return ErrForbidden
	}
	if role != "" && !role.Valid() {
		return fmt.Errorf("%w: choose reader, editor or admin, or the account's own role", ErrInvalid)
	}
	if _, err := s.Workspace(ctx, workspace); err != nil {
		return err
	}
	a, err := s.store.Account(ctx, accountID)
	if err != nil {
		return err
	}
	if remove {
		if err := s.store.DeleteMembership(ctx, accountID, workspace); err != nil {
			return err
		}
		s.Record(ctx, AuditEvent{Actor: by.Name(), Action: "membership ended", Target: a.Name, Workspace: workspace})
		return nil
	}
	if err := s.store.PutMembership(ctx, Membership{AccountID: accountID, Workspace: workspace, Role: role}); err != nil {
		return err
	}
	s.Record(ctx, AuditEvent{Actor: by.Name(), Action: "membership set", Target: a.Name, Detail: cmpRole(role), Workspace: workspace})
	return nil
}

func cmpRole(r Role) string {
	if r == "" {
		return "(own role)"
	}
	return string(r)
}

// SetEntityTypes makes types (normalised by graphrag.ParseEntityTypes, comma-separated; "" the server's) the
// entity types the extraction of workspace id asks for; by must be an admin in that workspace.
func (s *Service) SetEntityTypes(ctx context.Context, by Principal, id, types string) error {
	if !by.RoleIn(id).Allows(Admin) {
		return ErrForbidden
	}
	w, err := s.Workspace(ctx, id)
	if err != nil {
		return err
	}
	w.EntityTypes = types
	if err := s.store.PutWorkspace(ctx, w); err != nil {
		return err
	}
	s.Record(ctx, AuditEvent{Actor: by.Name(), Action: "entity types set", Target: id, Detail: cmp.Or(types, "(the server's)"), Workspace: id})
	return nil
}

// EntityTypeSource is what the extraction of workspace id reads its entity types from at each passage
// (graphrag.LLMExtractor.WithEntityTypeSource): the workspace's setting, nil when it names none.
func EntityTypeSource(store Store, id string) func(context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		all, err := store.Workspaces(ctx)
		if err != nil {
			return nil, fmt.Errorf("auth: entity types of workspace %s: %w", id, err)
		}
		i := slices.IndexFunc(all, func(w Workspace) bool { return w.ID == id })
		if i < 0 || all[i].EntityTypes == "" {
			return nil, nil
		}
		var out []string
		for t := range strings.SplitSeq(all[i].EntityTypes, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
		return out, nil
	}
}

// DeleteWorkspace removes workspace id for good: by must be an admin, confirm the workspace's ID typed
// again, and the default workspace is never deleted. drop removes its documents, passages, graph,
// conversations, runs and jobs from the graph store first (a failure leaves the workspace listed, to try
// again); then its record, its memberships and the tokens limited to it go. The audit log keeps what
// happened in it.
func (s *Service) DeleteWorkspace(ctx context.Context, by Principal, id, confirm string, drop func(context.Context) error) error {
	if !by.Role.Allows(Admin) {
		return ErrForbidden
	}
	if id == DefaultWorkspace {
		return fmt.Errorf("%w: the default workspace cannot be deleted (delete its documents instead)", ErrInvalid)
	}
	w, err := s.Workspace(ctx, id)
	if err != nil {
		return err
	}
	if strings.TrimSpace(confirm) != id {
		return fmt.Errorf("%w: type the workspace's ID, %s, to confirm that everything in it is to be deleted", ErrInvalid, id)
	}
	if drop != nil {
		if err := drop(ctx); err != nil {
			return fmt.Errorf("auth: delete the documents of workspace %s: %w", id, err)
		}
	}
	if err := s.store.DeleteWorkspace(ctx, id); err != nil {
		return err
	}
	s.Record(ctx, AuditEvent{Actor: by.Name(), Action: "workspace deleted", Target: id, Detail: w.Name, Workspace: id})
	return nil
}
