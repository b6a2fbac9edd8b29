package graphrag

import (
	"context"
	"fmt"
	"slices"
)

// Resolver rewrites a chunk's extraction before it is stored: the edits in force (merges, splits, renames,
// deletions) and entity resolution beyond the key. The ingester calls it between extraction and storage.
type Resolver interface {
	Resolve(ctx context.Context, c Chunk, x Extraction) (Extraction, error)
}

// EditRules is a Resolver that applies the edits in force only (RuleSet), for an ingester without entity
// resolution beyond the key.
type EditRules struct{ Store EditStore }

// Resolve rewrites x by the applied edits that concern its entities.
func (r EditRules) Resolve(ctx context.Context, c Chunk, x Extraction) (Extraction, error) {
	return ApplyEditsFrom(ctx, r.Store, x)
}

// ApplyEditsFrom reads the applied edits concerning x's entities from store and rewrites x by them.
func ApplyEditsFrom(ctx context.Context, store EditStore, x Extraction) (Extraction, error) {
	keys := make([]string, 0, len(x.Entities))
	for _, e := range x.Entities {
		keys = append(keys, e.Key)
	}
	if len(keys) == 0 {
		return x, nil
	}
	edits, err := store.Edits(ctx, EditQuery{Keys: keys, Statuses: []EditStatus{EditApplied}, Limit: maxRuleEdits})
	if err != nil {
		return Extraction{}, fmt.Errorf("graphrag: read edits: %w", err)
	}
	return RuleSet(edits).Apply(x), nil
}

// ByResolver marks the edits the resolver made at ingest; the others are a person's ("user").
const ByResolver = "resolver"

// Rekey rewrites an extraction with every key of to (key -> new key), named names[new key] where given.
func Rekey(x Extraction, to map[string]string, names map[string]string) Extraction {
	r := RuleSet(nil)
	for from, k := range to {
		r.redirect[from] = k
	}
	for k, n := range names {
		r.names[k] = n
	}
	return r.Apply(x)
}

// maxRuleEdits bounds the edits read for one extraction.
const maxRuleEdits = 1000

// Rules are the effects of the edits in force on what an extraction says.
type Rules struct {
	redirect  map[string]string // key -> the entity it was merged into or is an alias of
	split     map[string]map[string]string
	names     map[string]string
	types     map[string]string
	deleted   map[string]bool
	deletedRe map[string]bool
}

// RuleSet is the rules of edits (any order; only applied ones count, the newest winning).
func RuleSet(edits []Edit) Rules {
	r := Rules{redirect: map[string]string{}, split: map[string]map[string]string{}, names: map[string]string{},
		types: map[string]string{}, deleted: map[string]bool{}, deletedRe: map[string]bool{}}
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b Edit) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for _, e := range edits {
		if e.Status != EditApplied || len(e.Keys) == 0 {
			continue
		}
		k := e.Keys[0]
		switch e.Kind {
		case EditMerge:
			if e.By == ByResolver {
				// the resolver decides again on every extraction; a person's merge is a rule
				continue
			}
			for _, from := range e.Keys[1:] {
				r.redirect[from] = k
				delete(r.deleted, from)
			}
		case EditAlias:
			if a := NormalizeKey(e.Name); a != k {
				r.redirect[a] = k
			}
		case EditSplit:
			if len(e.Keys) > 1 {
				for _, c := range e.Chunks {
					if r.split[c] == nil {
						r.split[c] = map[string]string{}
					}
					r.split[c][k] = e.Keys[1]
				}
			}
		case EditRename:
			r.names[k] = e.Name
		case EditRetype:
			r.types[k] = e.Type
		case EditDeleteEntity:
			r.deleted[k] = true
		case EditDeleteRelation:
			r.deletedRe[e.Relation] = true
		}
	}
	return r
}

// key is where the rules send an entity key named in chunk.
func (r Rules) key(k, chunk string) string {
	for range 8 { // redirects are short chains; the cap guards against a cycle
		if to, ok := r.split[chunk][k]; ok {
			k = to
			continue
		}
		to, ok := r.redirect[k]
		if !ok || to == k {
			break
		}
		k = to
	}
	return k
}

// Apply rewrites an extraction: each entity under the key the rules send it to (its own name kept as an
// alias), named and typed as renamed and retyped, deleted ones left out with their relations, relations
// given the new ends and IDs (self-loops and deleted relations left out) and folded by ID.
func (r Rules) Apply(x Extraction) Extraction {
	out := Extraction{ChunkID: x.ChunkID}
	index := map[string]int{}
	for _, e := range x.Entities {
		k := r.key(e.Key, x.ChunkID)
		if r.deleted[k] {
			continue
		}
		n := e
		n.Key = k
		if name, ok := r.names[k]; ok {
			n.Aliases = SortedUnion(n.Aliases, []string{e.Name})
			n.Name = name
		}
		if typ, ok := r.types[k]; ok {
			n.Type = typ
		}
		if i, ok := index[k]; ok {
			out.Entities[i] = MergeEntity(out.Entities[i], n)
			continue
		}
		index[k] = len(out.Entities)
		out.Entities = append(out.Entities, n)
	}
	seen := map[string]int{}
	for _, rel := range x.Relations {
		src, dst := r.key(rel.Source, x.ChunkID), r.key(rel.Target, x.ChunkID)
		if r.deleted[src] || r.deleted[dst] || src == dst {
			continue
		}
		n := rel
		n.Source, n.Target, n.ID = src, dst, RelationID(src, rel.Type, dst)
		if r.deletedRe[n.ID] {
			continue
		}
		if i, ok := index[src]; ok {
			n.SourceName = out.Entities[i].Name
		}
		if i, ok := index[dst]; ok {
			n.TargetName = out.Entities[i].Name
		}
		if i, ok := seen[n.ID]; ok {
			out.Relations[i] = MergeRelation(out.Relations[i], n)
			continue
		}
		seen[n.ID] = len(out.Relations)
		out.Relations = append(out.Relations, n)
	}
	return out
}
