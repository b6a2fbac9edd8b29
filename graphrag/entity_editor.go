package graphrag

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// EditorStore is what the Editor reads and writes.
type EditorStore interface {
	EditStore
	Chunks(ctx context.Context, ids []string) ([]Chunk, error)
}

// Editor makes the edits people ask for (the explorer and the API): each reads the part of the graph it
// changes, plans the change, and records it as an edit with what it changed, in one store transaction.
type Editor struct {
	Store EditorStore
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// EditRequest is one edit asked for. Key is the entity concerned; Other the entity merged into Key, or
// said not to be Key; Name the new name or alias; Type the new type; Relation the relation to delete;
// Chunks the passages a split moves; Proposal the proposal a merge or a "not the same" decides.
type EditRequest struct {
	Kind     EditKind
	Key      string
	Other    string
	Name     string
	Type     string
	Relation string
	Chunks   []string
	Proposal string
}

// Apply makes the edit r asks for and returns it as recorded.
func (ed Editor) Apply(ctx context.Context, r EditRequest) (Edit, error) {
	e := Edit{ID: NewEditID(), Kind: r.Kind, Status: EditApplied, By: "user", CreatedAt: ed.now()}
	keys := []string{r.Key}
	var plan func(GraphPatch) (GraphPatch, error)
	switch r.Kind {
	case EditMerge:
		if r.Other == "" || r.Other == r.Key {
			return Edit{}, fmt.Errorf("%w: a merge needs two entities", ErrEdit)
		}
		keys = append(keys, r.Other)
		plan = func(s GraphPatch) (GraphPatch, error) { return PlanMerge(s, r.Key, []string{r.Other}) }
	case EditSplit:
		keys = append(keys, NormalizeKey(r.Name))
		e.Name, e.Type, e.Chunks = r.Name, r.Type, r.Chunks
		plan = func(s GraphPatch) (GraphPatch, error) { return PlanSplit(s, r.Key, r.Name, r.Type, r.Chunks) }
	case EditRename:
		e.Name = strings.TrimSpace(r.Name)
		plan = func(s GraphPatch) (GraphPatch, error) { return PlanRename(s, r.Key, e.Name) }
	case EditRetype:
		e.Type = strings.ToLower(strings.TrimSpace(r.Type))
		plan = func(s GraphPatch) (GraphPatch, error) { return PlanRetype(s, r.Key, e.Type) }
	case EditAlias:
		e.Name = strings.TrimSpace(r.Name)
		plan = func(s GraphPatch) (GraphPatch, error) { return PlanAlias(s, r.Key, e.Name) }
	case EditDeleteEntity:
		plan = func(s GraphPatch) (GraphPatch, error) { return PlanDeleteEntity(s, r.Key) }
	case EditDeleteRelation:
		e.Relation = r.Relation
		plan = func(s GraphPatch) (GraphPatch, error) {
			for _, rel := range s.Relations {
				if rel.ID == r.Relation {
					e.Keys = []string{rel.Source, rel.Target}
				}
			}
			return PlanDeleteRelation(s, r.Relation)
		}
	case EditDistinct:
		if r.Other == "" || r.Other == r.Key {
			return Edit{}, fmt.Errorf("%w: \"not the same\" needs two entities", ErrEdit)
		}
		keys = append(keys, r.Other)
		plan = func(GraphPatch) (GraphPatch, error) { return GraphPatch{}, nil }
	default:
		return Edit{}, fmt.Errorf("%w: unknown edit %q", ErrEdit, r.Kind)
	}
	if r.Key == "" {
		return Edit{}, fmt.Errorf("%w: which entity?", ErrEdit)
	}
	if len(e.Keys) == 0 {
		e.Keys = keys
	}
	if r.Proposal != "" {
		if err := ed.decides(ctx, &e, r.Proposal); err != nil {
			return Edit{}, err
		}
	}
	return e, ed.record(ctx, &e, keys, plan)
}

// decides makes e the decision on a proposal still open.
func (ed Editor) decides(ctx context.Context, e *Edit, proposal string) error {
	ps, err := ed.Store.Edits(ctx, EditQuery{ID: proposal})
	if err != nil {
		return err
	}
	if len(ps) == 0 || ps[0].Status != EditProposed {
		return fmt.Errorf("%w: %s is no open proposal", ErrEdit, proposal)
	}
	e.Target, e.TargetStatus = proposal, EditRejected
	if e.Kind == EditMerge {
		e.TargetStatus = EditAccepted
		e.Rule, e.Score, e.Evidence, e.Names = ps[0].Rule, ps[0].Score, ps[0].Evidence, ps[0].Names
	}
	return nil
}

// record reads the state of keys, plans the change and applies it with e.
func (ed Editor) record(ctx context.Context, e *Edit, keys []string, plan func(GraphPatch) (GraphPatch, error)) error {
	state, err := ed.Store.GraphState(ctx, keys)
	if err != nil {
		return err
	}
	after, err := plan(state)
	if err != nil {
		return err
	}
	e.After, e.Before = after, Inverse(state, after)
	return ed.Store.ApplyEdit(ctx, *e, after)
}

// Undo undoes the edit id: it puts back what the edit changed (keeping what was ingested since), and a
// merge undone is recorded as a pair not to merge again. A merge the resolver made at ingest changed no
// stored entity, so its undo splits the merged name off again: the passages that write it move to an
// entity of that name.
func (ed Editor) Undo(ctx context.Context, id string) (Edit, error) {
	es, err := ed.Store.Edits(ctx, EditQuery{ID: id})
	if err != nil {
		return Edit{}, err
	}
	if len(es) == 0 {
		return Edit{}, fmt.Errorf("%w: no edit %s", ErrEdit, id)
	}
	target := es[0]
	if target.Status != EditApplied || target.Kind == EditUndo {
		return Edit{}, fmt.Errorf("%w: %s is %s, not an edit in force", ErrEdit, id, target.Status)
	}
	u := Edit{ID: NewEditID(), Kind: EditUndo, Status: EditApplied, Keys: target.Keys, Names: target.Names, By: "user",
		Target: id, TargetStatus: EditUndone, CreatedAt: ed.now()}
	if target.Kind == EditMerge && target.By == ByResolver && target.Before.Empty() {
		return u, ed.undoResolverMerge(ctx, &u, target)
	}
	current, err := ed.Store.GraphState(ctx, SortedUnion(PatchKeys(target.Before), PatchKeys(target.After)))
	if err != nil {
		return Edit{}, err
	}
	patch := PlanUndo(target, current)
	u.After, u.Before = patch, Inverse(current, patch)
	if err := ed.Store.ApplyEdit(ctx, u, patch); err != nil {
		return Edit{}, err
	}
	if target.Kind == EditMerge && len(target.Keys) > 1 {
		return u, ed.notAgain(ctx, target)
	}
	return u, nil
}

// undoResolverMerge splits the merged name (target.Keys[1], written target.Names[0]) off the entity kept.
func (ed Editor) undoResolverMerge(ctx context.Context, u *Edit, target Edit) error {
	kept, name := target.Keys[0], target.Keys[1]
	if len(target.Names) > 0 {
		name = target.Names[0]
	}
	state, err := ed.Store.GraphState(ctx, []string{kept, NormalizeKey(name)})
	if err != nil {
		return err
	}
	e, ok := entityIndex(state)[kept]
	if !ok {
		return fmt.Errorf("%w: %q is no longer in the graph", ErrEdit, kept)
	}
	cs, err := ed.Store.Chunks(ctx, e.ChunkIDs)
	if err != nil {
		return err
	}
	// passages that write only the merged name move to it; those that write both mention both
	var move, shared []string
	for _, c := range cs {
		switch {
		case !namedIn(c.Text, name):
		case namedIn(c.Text, e.Name):
			shared = append(shared, c.ID)
		default:
			move = append(move, c.ID)
		}
	}
	nk := NormalizeKey(name)
	patch := GraphPatch{}
	if len(move) > 0 {
		if patch, err = PlanSplit(state, kept, name, "", move); err != nil {
			return err
		}
	}
	if len(shared) > 0 {
		i := slices.IndexFunc(patch.Entities, func(x Entity) bool { return x.Key == nk })
		if i < 0 {
			patch.Entities = append(patch.Entities, Entity{Key: nk, Name: name, Aliases: []string{name}})
			i = len(patch.Entities) - 1
		}
		patch.Entities[i].ChunkIDs = SortedUnion(patch.Entities[i].ChunkIDs, shared)
	}
	// the kept entity is no longer also called so
	i := slices.IndexFunc(patch.Entities, func(x Entity) bool { return x.Key == kept })
	if i < 0 {
		patch.Entities = append(patch.Entities, e)
		i = len(patch.Entities) - 1
	}
	if name != e.Name {
		patch.Entities[i].Aliases = slices.DeleteFunc(slices.Clone(patch.Entities[i].Aliases), func(a string) bool { return a == name })
	}
	chunks := SortedUnion(move, shared)
	u.Chunks, u.After, u.Before = chunks, patch, Inverse(state, patch)
	if err := ed.Store.ApplyEdit(ctx, *u, patch); err != nil {
		return err
	}
	return ed.notAgain(ctx, target)
}

// notAgain records that the two entities of an undone merge are not one, so the resolver leaves them apart.
func (ed Editor) notAgain(ctx context.Context, merge Edit) error {
	d := Edit{ID: NewEditID(), Kind: EditDistinct, Status: EditApplied, Keys: merge.Keys[:2], Names: merge.Names, By: "user",
		Rule: "merge undone", CreatedAt: ed.now()}
	return ed.Store.ApplyEdit(ctx, d, GraphPatch{})
}

func (ed Editor) now() time.Time {
	if ed.Now != nil {
		return ed.Now().UTC()
	}
	return time.Now().UTC()
}

// namedIn reports whether text writes name as a phrase, case and accents aside.
func namedIn(text, name string) bool {
	k := NormalizeKey(name)
	return k != "" && strings.Contains(" "+NormalizeKey(text)+" ", " "+k+" ")
}
