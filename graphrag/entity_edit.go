package graphrag

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"time"
)

// EditKind says what an edit of the graph does.
type EditKind string

// The edits of the graph. Keys[0] is always the entity the edit is about.
const (
	// EditMerge merges Keys[1:] into Keys[0]; Names are the names merged.
	EditMerge EditKind = "merge"
	// EditSplit moves the mentions of Chunks (and the relations they support) from Keys[0] to a new
	// entity Keys[1] called Name.
	EditSplit EditKind = "split"
	// EditRename names Keys[0] Name; its old name stays an alias.
	EditRename EditKind = "rename"
	// EditRetype gives Keys[0] the type Type.
	EditRetype EditKind = "retype"
	// EditDeleteEntity removes Keys[0] with its relations; an extraction naming it again is ignored.
	EditDeleteEntity EditKind = "delete_entity"
	// EditDeleteRelation removes the relation Relation; an extraction stating it again is ignored.
	EditDeleteRelation EditKind = "delete_relation"
	// EditAlias adds Name to Keys[0]'s names: an extraction writing Name means Keys[0].
	EditAlias EditKind = "alias"
	// EditDistinct records that Keys[0] and Keys[1] are not one thing: they are never merged or proposed again.
	EditDistinct EditKind = "distinct"
	// EditUndo undoes the edit Target.
	EditUndo EditKind = "undo"
)

// EditStatus is where an edit stands.
type EditStatus string

const (
	// EditApplied: in force.
	EditApplied EditStatus = "applied"
	// EditProposed: a merge the resolver was not sure of, waiting for a person (Keys[0], Keys[1]).
	EditProposed EditStatus = "proposed"
	// EditAccepted: a proposal a person merged (the merge is an edit of its own).
	EditAccepted EditStatus = "accepted"
	// EditRejected: a proposal a person said were not the same.
	EditRejected EditStatus = "rejected"
	// EditUndone: an edit undone by a later one.
	EditUndone EditStatus = "undone"
)

// Edit is a change of the graph made by a person or by the resolver at ingest, kept as an edit so that it
// is in the audit trail, can be undone, and holds against re-extraction: an extraction is rewritten by the
// edits in force (RuleSet) before it is stored.
type Edit struct {
	ID       string
	Kind     EditKind
	Status   EditStatus
	Keys     []string // the entities concerned, the one kept first
	Names    []string // the surface names concerned (merged names, the alias)
	Name     string   // the new name (rename, split, alias); of the resolver's merge, the entity kept's
	Type     string   // the new type (retype, split)
	Relation string   // the relation deleted
	Chunks   []string // the mentions moved by a split
	// By says who made it: "resolver" or "user".
	By string
	// Rule, Score and Evidence say why the resolver merged or proposed it.
	Rule     string
	Score    float64
	Evidence []string
	// Target is the edit an undo undoes, or the proposal a merge or a distinct decides; TargetStatus is
	// the status it takes then.
	Target       string
	TargetStatus EditStatus
	// Before is the part of the graph the edit changed, as it was, and After as the edit left it: what an
	// undo restores, keeping what was ingested meanwhile.
	Before, After GraphPatch
	CreatedAt     time.Time
}

// GraphPatch is part of the graph to write as given: entities with exactly these fields and mentions
// (ChunkIDs; DocIDs are ignored), relations with exactly these fields, vector and supporting chunks; and
// the entities (with every relation touching them) and relations to delete.
type GraphPatch struct {
	Entities        []Entity
	Relations       []Relation
	DeleteEntities  []string
	DeleteRelations []string
}

// Empty reports whether the patch changes nothing.
func (p GraphPatch) Empty() bool {
	return len(p.Entities) == 0 && len(p.Relations) == 0 && len(p.DeleteEntities) == 0 && len(p.DeleteRelations) == 0
}

// EditQuery selects edits: those concerning any of Keys (all when empty), of any of Kinds and Statuses
// (all when empty), or the one with ID; at most Limit (100 when 0), newest first.
type EditQuery struct {
	ID       string
	Keys     []string
	Kinds    []EditKind
	Statuses []EditStatus
	Limit    int
}

// EditStore keeps the edits of the graph and applies them.
type EditStore interface {
	// GraphState reads the entities with these keys (unknown ones skipped) with their mentions, and every
	// relation touching one of them with its vector and supporting chunks: what an edit starts from.
	GraphState(ctx context.Context, keys []string) (GraphPatch, error)
	// ApplyEdit writes patch and records e, in one transaction: relations and entities deleted first,
	// then the entities written, then the relations (whose ends are then in the store), mentions and
	// supports limited to chunks in the store; e.Target, when set, takes e.TargetStatus. An edit whose ID
	// is recorded already is left as it is and the call changes nothing (a proposal made twice is one).
	ApplyEdit(ctx context.Context, e Edit, patch GraphPatch) error
	// Edits lists the edits q selects, newest first.
	Edits(ctx context.Context, q EditQuery) ([]Edit, error)
}

// ErrEdit is an edit that cannot be made as asked (an unknown entity, a name already taken, an undo of an
// edit not in force); its message says why.
var ErrEdit = errors.New("graphrag: edit refused")

// NewEditID is a new random edit ID.
func NewEditID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "e" + hex.EncodeToString(b)
}

// ProposalID is the ID of the proposal to merge two entities, the same whichever order they come in, so
// the resolver proposing a pair again changes nothing.
func ProposalID(a, b string) string {
	if a > b {
		a, b = b, a
	}
	sum := sha256.Sum256([]byte(a + "\x00" + b))
	return "p" + hex.EncodeToString(sum[:8])
}

// EditKeys are the keys a store indexes an edit under, so that EditQuery.Keys finds it: its entities and
// the keys of the names it concerns.
func EditKeys(e Edit) []string {
	keys := slices.Clone(e.Keys)
	for _, n := range e.Names {
		keys = append(keys, NormalizeKey(n))
	}
	if e.Name != "" {
		keys = append(keys, NormalizeKey(e.Name))
	}
	return SortedUnion(keys)
}
