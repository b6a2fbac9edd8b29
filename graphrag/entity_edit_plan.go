package graphrag

import (
	"fmt"
	"maps"
	"slices"
)

// The plans of the edits: pure functions from the part of the graph an edit starts from (GraphState) to
// the patch that makes it, so both stores edit alike. Each refuses with ErrEdit what cannot be done.

// PlanMerge merges the entities from into the entity into: one entity with into's key, name and type,
// every alias and mention of both and the longer description (MergeEntity); the relations of from's
// entities moved to into (merged with any relation that then has the same ID, self-loops dropped).
func PlanMerge(state GraphPatch, into string, from []string) (GraphPatch, error) {
	ents := entityIndex(state)
	kept, ok := ents[into]
	if !ok {
		return GraphPatch{}, fmt.Errorf("%w: no entity %q", ErrEdit, into)
	}
	moved := map[string]string{}
	for _, k := range from {
		e, ok := ents[k]
		if !ok || k == into {
			return GraphPatch{}, fmt.Errorf("%w: no entity %q to merge into %q", ErrEdit, k, into)
		}
		kept = MergeEntity(kept, e)
		moved[k] = into
	}
	p := rewriteRelations(state.Relations, func(r Relation) (string, string, []string) {
		return mapKey(moved, r.Source), mapKey(moved, r.Target), r.ChunkIDs
	})
	p.Entities = append(p.Entities, kept)
	p.DeleteEntities = slices.Sorted(maps.Keys(moved))
	return p, nil
}

// PlanSplit moves the mentions of chunks from the entity key to a new entity called name (of type typ, or
// key's type when empty), with the support those chunks give key's relations. The new name's key must be
// free (else merge into it), and key must keep a mention and lose one.
func PlanSplit(state GraphPatch, key, name, typ string, chunks []string) (GraphPatch, error) {
	ents := entityIndex(state)
	old, ok := ents[key]
	if !ok {
		return GraphPatch{}, fmt.Errorf("%w: no entity %q", ErrEdit, key)
	}
	nk := NormalizeKey(name)
	if nk == "" || nk == key {
		return GraphPatch{}, fmt.Errorf("%w: the new entity needs a name of its own, not %q", ErrEdit, name)
	}
	if _, taken := ents[nk]; taken {
		return GraphPatch{}, fmt.Errorf("%w: %q is an entity already; merge into it instead", ErrEdit, name)
	}
	move := intersect(old.ChunkIDs, chunks)
	stay := minus(old.ChunkIDs, chunks)
	if len(move) == 0 || len(stay) == 0 {
		return GraphPatch{}, fmt.Errorf("%w: a split moves some of %q's %d passages, not none or all (rename it instead)", ErrEdit, old.Name, len(old.ChunkIDs))
	}
	p := rewriteRelations(state.Relations, func(r Relation) (string, string, []string) {
		if r.Source != key && r.Target != key {
			return r.Source, r.Target, r.ChunkIDs
		}
		return r.Source, r.Target, minus(r.ChunkIDs, move)
	})
	// the moved support, on relations of the new entity
	for _, r := range state.Relations {
		if r.Source != key && r.Target != key {
			continue
		}
		if ids := intersect(r.ChunkIDs, move); len(ids) > 0 {
			src, dst := swapKey(r.Source, key, nk), swapKey(r.Target, key, nk)
			n := r
			n.ID, n.Source, n.Target, n.ChunkIDs = RelationID(src, r.Type, dst), src, dst, ids
			p.Relations = append(p.Relations, n)
		}
	}
	old.ChunkIDs = stay
	created := Entity{Key: nk, Name: name, Type: cmpOr(typ, old.Type), Aliases: []string{name}, ChunkIDs: move}
	p.Entities = append(p.Entities, old, created)
	return p, nil
}

// PlanRename names the entity key name, keeping its old name as an alias.
func PlanRename(state GraphPatch, key, name string) (GraphPatch, error) {
	return planEntity(state, key, func(e *Entity) error {
		if name == "" {
			return fmt.Errorf("%w: a name cannot be empty", ErrEdit)
		}
		e.Aliases = SortedUnion(e.Aliases, []string{e.Name, name})
		e.Name = name
		return nil
	})
}

// PlanRetype gives the entity key the type typ.
func PlanRetype(state GraphPatch, key, typ string) (GraphPatch, error) {
	return planEntity(state, key, func(e *Entity) error {
		e.Type = typ
		return nil
	})
}

// PlanAlias adds name to the names of the entity key.
func PlanAlias(state GraphPatch, key, name string) (GraphPatch, error) {
	return planEntity(state, key, func(e *Entity) error {
		if NormalizeKey(name) == "" {
			return fmt.Errorf("%w: an alias needs a name", ErrEdit)
		}
		e.Aliases = SortedUnion(e.Aliases, []string{name})
		return nil
	})
}

// PlanDeleteEntity deletes the entity key and its relations.
func PlanDeleteEntity(state GraphPatch, key string) (GraphPatch, error) {
	if _, ok := entityIndex(state)[key]; !ok {
		return GraphPatch{}, fmt.Errorf("%w: no entity %q", ErrEdit, key)
	}
	return GraphPatch{DeleteEntities: []string{key}}, nil
}

// PlanDeleteRelation deletes the relation id.
func PlanDeleteRelation(state GraphPatch, id string) (GraphPatch, error) {
	for _, r := range state.Relations {
		if r.ID == id {
			return GraphPatch{DeleteRelations: []string{id}}, nil
		}
	}
	return GraphPatch{}, fmt.Errorf("%w: no relation %q", ErrEdit, id)
}

// Inverse is the patch that puts back what after changes of state: every entity and relation after
// writes or deletes (with the relations of the entities it deletes) as state had it, or deleted where
// state had none.
func Inverse(state, after GraphPatch) GraphPatch {
	ents, rels := entityIndex(state), relationIndex(state)
	var inv GraphPatch
	seenE := map[string]bool{}
	entity := func(k string) {
		if seenE[k] {
			return
		}
		seenE[k] = true
		if e, ok := ents[k]; ok {
			inv.Entities = append(inv.Entities, e)
		} else {
			inv.DeleteEntities = append(inv.DeleteEntities, k)
		}
	}
	seenR := map[string]bool{}
	relation := func(id string) {
		if seenR[id] {
			return
		}
		seenR[id] = true
		if r, ok := rels[id]; ok {
			inv.Relations = append(inv.Relations, r)
		} else {
			inv.DeleteRelations = append(inv.DeleteRelations, id)
		}
	}
	for _, e := range after.Entities {
		entity(e.Key)
	}
	for _, k := range after.DeleteEntities {
		entity(k)
		for _, r := range state.Relations {
			if r.Source == k || r.Target == k {
				relation(r.ID)
			}
		}
	}
	for _, r := range after.Relations {
		relation(r.ID)
	}
	for _, id := range after.DeleteRelations {
		relation(id)
	}
	return inv
}

// PlanUndo is the patch that undoes an edit: its Before, with the mentions and supports that current (the
// graph now) has beyond what the edit left (After), so passages ingested since are not lost where the
// restored entity or relation exists.
func PlanUndo(e Edit, current GraphPatch) GraphPatch {
	after, now := entityIndex(e.After), entityIndex(current)
	afterR, nowR := relationIndex(e.After), relationIndex(current)
	p := GraphPatch{DeleteEntities: e.Before.DeleteEntities, DeleteRelations: e.Before.DeleteRelations}
	for _, b := range e.Before.Entities {
		if n, ok := now[b.Key]; ok {
			b.ChunkIDs = SortedUnion(b.ChunkIDs, minus(n.ChunkIDs, after[b.Key].ChunkIDs))
		}
		p.Entities = append(p.Entities, b)
	}
	for _, b := range e.Before.Relations {
		if n, ok := nowR[b.ID]; ok {
			b.ChunkIDs = SortedUnion(b.ChunkIDs, minus(n.ChunkIDs, afterR[b.ID].ChunkIDs))
		}
		p.Relations = append(p.Relations, b)
	}
	return p
}

// PatchKeys are the entity keys a patch writes or deletes, and those of its relations' ends.
func PatchKeys(p GraphPatch) []string {
	var keys []string
	for _, e := range p.Entities {
		keys = append(keys, e.Key)
	}
	for _, r := range p.Relations {
		keys = append(keys, r.Source, r.Target)
	}
	return SortedUnion(keys, p.DeleteEntities)
}

// planEntity is the patch that writes the entity key as change leaves it.
func planEntity(state GraphPatch, key string, change func(*Entity) error) (GraphPatch, error) {
	e, ok := entityIndex(state)[key]
	if !ok {
		return GraphPatch{}, fmt.Errorf("%w: no entity %q", ErrEdit, key)
	}
	if err := change(&e); err != nil {
		return GraphPatch{}, err
	}
	return GraphPatch{Entities: []Entity{e}}, nil
}

// rewriteRelations gives each relation the ends and support ends returns: a relation whose ID changes is
// deleted and written under the new one, merged with the relations that then share that ID; one left
// without support, or joining an entity to itself, is deleted.
func rewriteRelations(rels []Relation, ends func(Relation) (src, dst string, chunks []string)) GraphPatch {
	type moved struct {
		r       Relation
		changed bool
	}
	all := make([]moved, len(rels))
	stays := map[string]Relation{} // unchanged relations by ID
	for i, r := range rels {
		src, dst, chunks := ends(r)
		n := r
		n.Source, n.Target, n.ChunkIDs, n.ID = src, dst, chunks, RelationID(src, r.Type, dst)
		all[i] = moved{n, n.ID != r.ID || !slices.Equal(chunks, r.ChunkIDs)}
		if !all[i].changed {
			stays[r.ID] = r
		}
	}
	var p GraphPatch
	out := map[string]Relation{}
	for i, m := range all {
		if !m.changed {
			continue
		}
		n, old := m.r, rels[i]
		if n.ID != old.ID || n.Source == n.Target || len(n.ChunkIDs) == 0 {
			p.DeleteRelations = append(p.DeleteRelations, old.ID)
		}
		if n.Source == n.Target || len(n.ChunkIDs) == 0 {
			continue
		}
		if prev, ok := out[n.ID]; ok {
			n = MergeRelation(prev, n)
		} else if same, ok := stays[n.ID]; ok {
			n = MergeRelation(same, n)
		}
		out[n.ID] = n
	}
	for _, id := range slices.Sorted(maps.Keys(out)) {
		p.Relations = append(p.Relations, out[id])
	}
	p.DeleteRelations = slices.DeleteFunc(SortedUnion(p.DeleteRelations), func(id string) bool { _, kept := out[id]; return kept })
	return p
}

func entityIndex(p GraphPatch) map[string]Entity {
	out := make(map[string]Entity, len(p.Entities))
	for _, e := range p.Entities {
		out[e.Key] = e
	}
	return out
}

func relationIndex(p GraphPatch) map[string]Relation {
	out := make(map[string]Relation, len(p.Relations))
	for _, r := range p.Relations {
		out[r.ID] = r
	}
	return out
}

func mapKey(m map[string]string, k string) string {
	if v, ok := m[k]; ok {
		return v
	}
	return k
}

func swapKey(k, from, to string) string {
	if k == from {
		return to
	}
	return k
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// intersect is the sorted set of a's strings that are in b.
func intersect(a, b []string) []string {
	var out []string
	for _, s := range a {
		if slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return SortedUnion(out)
}

// minus is the sorted set of a's strings that are not in b.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return SortedUnion(out)
}
