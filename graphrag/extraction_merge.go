package graphrag

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"
)

// The merge rules of the knowledge graph, written once: both stores, and the extraction that folds the names
// a chunk repeats, merge with these pure functions, so an entity or a relation ends the same in every store.

// MergeEntity is the entity a key holds once e is merged into stored (the zero Entity when the key holds
// none yet): the first name and type stay; the aliases are the sorted union of both entities' aliases and
// names; the longer description wins, counted in characters (runes, so a name in any script merges the
// same everywhere), a tie keeping the stored one; chunks and documents are unioned.
func MergeEntity(stored, e Entity) Entity {
	out := stored
	if stored.Key == "" {
		out = Entity{Key: e.Key, Name: cmp.Or(e.Name, e.Key)}
	}
	out.Type = cmp.Or(out.Type, e.Type)
	out.Description = longer(stored.Description, e.Description)
	out.Aliases = SortedUnion(stored.Aliases, e.Aliases, []string{out.Name, e.Name})
	out.ChunkIDs = SortedUnion(stored.ChunkIDs, e.ChunkIDs)
	out.DocIDs = SortedUnion(stored.DocIDs, e.DocIDs)
	return out
}

// MergeRelation is the relation an ID holds once r is merged into stored (the zero Relation when the ID
// holds none yet): the ends, their names and the type stay (RELATED_TO when r has none); the longer
// description wins as in MergeEntity; the values are overlaid with r's taking precedence; chunks and
// documents are unioned; r's vector replaces the stored one only when r has one (a relation's sentence
// names its ends and type, which stay).
func MergeRelation(stored, r Relation) Relation {
	out := stored
	if stored.ID == "" {
		out = Relation{ID: r.ID, Source: r.Source, Target: r.Target, SourceName: r.SourceName, TargetName: r.TargetName,
			Type: cmp.Or(r.Type, NormalizeRelationType(""))}
	}
	out.Description = longer(stored.Description, r.Description)
	out.Values = make(map[string]any, len(stored.Values)+len(r.Values))
	maps.Copy(out.Values, stored.Values)
	maps.Copy(out.Values, r.Values)
	out.ChunkIDs = SortedUnion(stored.ChunkIDs, r.ChunkIDs)
	out.DocIDs = SortedUnion(stored.DocIDs, r.DocIDs)
	if r.Embedding != nil {
		out.Embedding = r.Embedding
	}
	return out
}

// SameEntity reports whether a and b hold the same name, type, description and aliases: the values a store
// keeps on the entity itself (it keeps provenance as mentions). A store skips rewriting an entity that
// MergeEntity left as it was, which spares its full-text entry.
func SameEntity(a, b Entity) bool {
	return a.Key == b.Key && a.Name == b.Name && a.Type == b.Type && a.Description == b.Description &&
		slices.Equal(a.Aliases, b.Aliases)
}

// longer is the description with more characters; a tie keeps stored.
func longer(stored, d string) string {
	if utf8.RuneCountInString(d) > utf8.RuneCountInString(stored) {
		return d
	}
	return stored
}

// SortedUnion is the sorted union of lists, without empty strings or repeats.
func SortedUnion(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ExtractionPlan is an extraction in the form a store writes it, in one transaction.
type ExtractionPlan struct {
	ChunkID string
	// Entities are folded by key with MergeEntity and sorted by key (the stores' lock order). Each lists
	// the chunks that mention it: the extraction's chunk, its own ChunkIDs and those of every relation it
	// is an end of; a store records the mentions of those that are in the store.
	Entities []PlannedEntity
	// Relations are folded by ID with MergeRelation and sorted by ID, each supported by the extraction's
	// chunk and its own ChunkIDs.
	Relations []Relation
}

// PlannedEntity is an entity to write. EndOnly marks one the extraction names only as a relation's end:
// a store creates it when missing (MergeEntity of the zero Entity) and otherwise only records its mentions.
type PlannedEntity struct {
	Entity
	EndOnly bool
}

// ErrUnresolved is an extraction whose entity keys or relation IDs and ends are missing: the extractor
// resolves them (Extract, TriplesExtraction), never the store.
var ErrUnresolved = fmt.Errorf("graphrag: extraction not resolved")

// PlanExtraction folds and orders x for writing into a store of embedding dimension dim. An entity without
// a key, or a relation without an ID or an end, is ErrUnresolved; a relation vector of another dimension
// is ErrDimension.
func PlanExtraction(x Extraction, dim int) (ExtractionPlan, error) {
	entities := map[string]*PlannedEntity{}
	for _, e := range x.Entities {
		if e.Key == "" {
			return ExtractionPlan{}, fmt.Errorf("entity %q has no key: %w", e.Name, ErrUnresolved)
		}
		e.ChunkIDs = SortedUnion([]string{x.ChunkID}, e.ChunkIDs)
		prev := entities[e.Key]
		if prev == nil {
			prev = &PlannedEntity{}
			entities[e.Key] = prev
		}
		prev.Entity = MergeEntity(prev.Entity, e)
	}
	relations := map[string]Relation{}
	for _, r := range x.Relations {
		if r.ID == "" || r.Source == "" || r.Target == "" {
			return ExtractionPlan{}, fmt.Errorf("relation %s (%q to %q) has no ID or end: %w", r.ID, r.Source, r.Target, ErrUnresolved)
		}
		if r.Embedding != nil && len(r.Embedding) != dim {
			return ExtractionPlan{}, fmt.Errorf("relation %s: vector of dimension %d, the store's is %d: %w", r.ID, len(r.Embedding), dim, ErrDimension)
		}
		r.ChunkIDs = SortedUnion([]string{x.ChunkID}, r.ChunkIDs)
		relations[r.ID] = MergeRelation(relations[r.ID], r)
		for _, end := range [][2]string{{r.Source, r.SourceName}, {r.Target, r.TargetName}} {
			e := entities[end[0]]
			if e == nil {
				e = &PlannedEntity{Entity: MergeEntity(Entity{}, Entity{Key: end[0], Name: end[1]}), EndOnly: true}
				entities[end[0]] = e
			}
			e.ChunkIDs = SortedUnion(e.ChunkIDs, r.ChunkIDs)
		}
	}
	plan := ExtractionPlan{ChunkID: x.ChunkID}
	for _, key := range slices.Sorted(maps.Keys(entities)) {
		plan.Entities = append(plan.Entities, *entities[key])
	}
	for _, id := range slices.Sorted(maps.Keys(relations)) {
		plan.Relations = append(plan.Relations, relations[id])
	}
	return plan, nil
}
