package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Merges reach back and forward. A merge the resolver decided is a decision on a pair of keys, recorded
// once (mergeEdit's ID is the pair's), and holds for every passage, not only those resolved after it: a
// passage naming the merged key later is sent to the entity kept before anything else is decided on it
// (mergedKeys), and an entity of that key stored alone by a passage resolved earlier is merged into the
// entity kept as soon as both are stored (reachBack, after every extraction the resolver stores). So the
// graph an ingest ends with holds every merge decided on any passage, whichever passage came first: a
// resumed ingest, or documents read in another order or two at a time, end with the same entities.

// keepsFirst reports whether a, rather than b, keeps its key and name when the rule merges them: decided
// by the names alone, so the entity kept is the same whichever passage came first (the graph's entity
// kept before, the new name merged into it, whatever the order). A name qualified after a comma or in
// brackets ("Athens, Greece", "Munich, Bavaria") goes to its plain name; an abbreviation, a short form or a family name to the fuller
// name ("Bharatiya Janata Party", "Alfred Tarski"); otherwise (spellings, spacing, word order, names met
// by meaning) the name written in plain letters (Munich before München), then the longer, then the first
// in key order.
func keepsFirst(a, b Mention, rule string) bool {
	// "Munich, Bavaria" is Munich qualified, whatever the rule that merged them
	if _, ok := titleQualifier(a.Name, key(b.Name)); ok {
		return false
	}
	if _, ok := titleQualifier(b.Name, key(a.Name)); ok {
		return true
	}
	la, lb := len([]rune(key(a.Name))), len([]rune(key(b.Name)))
	switch rule {
	case "qualified name":
		if la != lb {
			return la < lb
		}
	case "abbreviation", "short form", "family name":
		if la != lb {
			return la > lb
		}
	default:
		if na, nb := nonASCII(a.Name), nonASCII(b.Name); na != nb {
			return na < nb
		}
		if la != lb {
			return la > lb
		}
	}
	return key(a.Name) <= key(b.Name)
}

// nonASCII counts the letters of name outside ASCII.
func nonASCII(name string) int {
	n := 0
	for _, r := range name {
		if r > 127 {
			n++
		}
	}
	return n
}

// maxMergeHops bounds the chain of merges followed from a key (one merged into another merged since).
const maxMergeHops = 4

var _ graphrag.ResolvedStorer = (*Resolver)(nil)

// StoreResolved stores x, which Resolve returned for c, with put, then merges into the entity kept every
// entity of x's keys, or stored before under a key merged into one of x's, that a merge in force says is
// another's. Stores and merges take turns with resolutions, so none of them sees a merge half made or
// an extraction half stored.
func (r *Resolver) StoreResolved(ctx context.Context, c graphrag.Chunk, x graphrag.Extraction, put func(context.Context, graphrag.Extraction) error) error {
	r.order.Lock()
	defer r.order.Unlock()
	if err := put(ctx, x); err != nil {
		return err
	}
	if len(x.Entities) == 0 {
		return nil
	}
	if err := r.reachBack(ctx, c, entityKeys(x)); err != nil {
		return fmt.Errorf("resolve: merge entities stored before: %w", err)
	}
	return nil
}

// merges are the resolver's merges in force among edits (gone key -> key kept), but for pairs distinct
// says are two things (a merge undone, a homonym).
func merges(edits []graphrag.Edit, distinct map[string]bool) map[string]string {
	out := map[string]string{}
	for _, e := range edits {
		if e.Kind != graphrag.EditMerge || e.Status != graphrag.EditApplied || e.By != graphrag.ByResolver || len(e.Keys) < 2 {
			continue
		}
		for _, gone := range e.Keys[1:] {
			if gone != e.Keys[0] && !distinct[pairKey(gone, e.Keys[0])] {
				out[gone] = e.Keys[0]
			}
		}
	}
	return out
}

// mergedKeys returns where the resolver's merges in force send keys (gone -> the key finally kept, for the
// keys merged only), following a key kept that was merged since, given edits, the applied edits of keys.
func (r *Resolver) mergedKeys(ctx context.Context, keys []string, edits []graphrag.Edit) (map[string]string, error) {
	distinct := distinctPairs(edits)
	to := merges(edits, distinct)
	read := map[string]bool{}
	for _, k := range keys {
		read[k] = true
	}
	for range maxMergeHops {
		var more []string
		for _, k := range to {
			if !read[k] {
				read[k] = true
				more = append(more, k)
			}
		}
		if len(more) == 0 {
			break
		}
		slices.Sort(more)
		es, err := r.store.Edits(ctx, graphrag.EditQuery{Keys: more, Statuses: []graphrag.EditStatus{graphrag.EditApplied}, Limit: 1000})
		if err != nil {
			return nil, fmt.Errorf("resolve: read edits: %w", err)
		}
		edits = append(edits, es...)
		distinct = distinctPairs(edits)
		to = merges(edits, distinct)
	}
	out := map[string]string{}
	for gone := range to {
		k := gone
		for range maxMergeHops + 1 {
			next, ok := to[k]
			if !ok || next == gone {
				break
			}
			k = next
		}
		if k != gone {
			out[gone] = k
		}
	}
	return out, nil
}

// redirect sends x's entities of keys merged into others to the entities kept, with the names of those
// for each key kept (to name them so once resolved).
func (r *Resolver) redirect(ctx context.Context, c graphrag.Chunk, x graphrag.Extraction, edits []graphrag.Edit) (graphrag.Extraction, map[string]string, error) {
	names := map[string]string{}
	to, err := r.mergedKeys(ctx, entityKeys(x), edits)
	if err != nil || len(to) == 0 {
		return x, names, err
	}
	var kept []string
	for _, e := range x.Entities {
		if k, ok := to[e.Key]; ok {
			kept = append(kept, k)
		}
	}
	if len(kept) == 0 {
		return x, names, nil
	}
	es, err := r.entities(ctx, graphrag.SortedUnion(kept), c.DocID)
	if err != nil {
		return x, names, err
	}
	for _, e := range es {
		names[e.Key] = e.Name
	}
	return graphrag.Rekey(x, to, nil), names, nil
}

// reachBack merges, into the entity kept, every stored entity of a key the resolver's merges in force send
// elsewhere among keys and the keys merged into them: an entity a passage stored alone before the merge
// was decided on another (or stored after that passage was resolved). Each such merge is recorded as a
// merge by the resolver of its own, naming the passages it moved, with the rule and evidence of the merge
// decided; like every merge of the resolver it changed what an extraction said, and its undo splits the
// merged name off again by the passages that write it (graphrag.Editor.Undo), so it records no Before.
func (r *Resolver) reachBack(ctx context.Context, c graphrag.Chunk, keys []string) error {
	edits, err := r.store.Edits(ctx, graphrag.EditQuery{Keys: keys, Statuses: []graphrag.EditStatus{graphrag.EditApplied}, Limit: 1000})
	if err != nil {
		return err
	}
	// the keys merged into x's keys count too: the passage may hold the entity kept
	gone := merges(edits, distinctPairs(edits))
	all := slices.Clone(keys)
	for g := range gone {
		all = append(all, g)
	}
	all = graphrag.SortedUnion(all)
	to, err := r.mergedKeys(ctx, all, edits)
	if err != nil {
		return err
	}
	decided := map[string]graphrag.Edit{} // gone -> the first merge of it recorded (edits come newest first)
	for _, e := range edits {
		if e.Kind == graphrag.EditMerge && e.By == graphrag.ByResolver && len(e.Keys) > 1 {
			decided[e.Keys[1]] = e
		}
	}
	froms := make([]string, 0, len(to))
	for g := range to {
		froms = append(froms, g)
	}
	slices.Sort(froms)
	for _, g := range froms {
		if err := r.mergeStored(ctx, c, g, to[g], decided[g]); err != nil {
			return err
		}
	}
	return nil
}

// mergeStored merges the stored entity of key gone into that of kept, when the store holds both,
// recording it as a merge by the resolver like why (the merge decided on the pair, when read).
func (r *Resolver) mergeStored(ctx context.Context, c graphrag.Chunk, gone, kept string, why graphrag.Edit) error {
	state, err := r.store.GraphState(ctx, []string{kept, gone})
	if err != nil {
		return err
	}
	var old, into graphrag.Entity
	held := 0
	for _, e := range state.Entities {
		switch e.Key {
		case gone:
			old = e
			held++
		case kept:
			into = e
			held++
		}
	}
	if held < 2 {
		return nil // nothing stored alone, or the entity kept not stored yet: its passage's store reaches back
	}
	patch, err := graphrag.PlanMerge(state, kept, []string{gone})
	if errors.Is(err, graphrag.ErrEdit) {
		return nil
	}
	if err != nil {
		return err
	}
	rule := why.Rule
	if rule == "" {
		rule = "merged before"
	}
	evidence := append(slices.Clone(why.Evidence), fmt.Sprintf("reached back: %q was stored alone in %d passage(s) before the merge into %q was decided (passage %s)",
		old.Name, len(old.ChunkIDs), kept, c.ID))
	e := graphrag.Edit{ID: "m" + hashKeys(kept, gone+"\x00"+strings.Join(old.ChunkIDs, "\x00")), Kind: graphrag.EditMerge,
		Status: graphrag.EditApplied, Keys: []string{kept, gone}, Names: []string{old.Name}, Name: into.Name, By: graphrag.ByResolver,
		Rule: rule, Score: why.Score, Evidence: evidence, Chunks: slices.Clone(old.ChunkIDs), CreatedAt: time.Now().UTC()}
	if err := r.store.ApplyEdit(ctx, e, patch); err != nil {
		return fmt.Errorf("record the merge of %q into %q: %w", gone, kept, err)
	}
	// the recent extractions say what the store now holds
	for _, p := range r.recent {
		for i := range p.entities {
			if p.entities[i].Key == gone {
				p.entities[i].Key = kept
			}
		}
	}
	return nil
}
