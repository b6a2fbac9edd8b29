package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

var editCases = []testCase{
	{"a merge moves mentions and relations, and its undo puts them back", testMergeUndo},
	{"an edit recorded already is not applied twice", testEditOnce},
	{"a split moves the mentions of some passages to a new entity", testSplit},
	{"rename, retype, alias and deletions are stored as edits and hold against a new extraction", testEditRules},
	{"Edits selects by entity, kind and status; a decision sets its proposal's status", testEditsQuery},
}

// lufthansaGraph stores two chunks: Lufthansa flies to Munich in the first, Deutsche Lufthansa AG flies to
// Munich and was founded in Cologne in the second.
func lufthansaGraph(f *fixture) (cs []graphrag.Chunk, lh, dlh, munich, cologne graphrag.Entity) {
	d := f.doc("airlines.txt", "airlines")
	cs = f.chunks(d, "Lufthansa flies to Munich.", "Deutsche Lufthansa AG flies to Munich; it was founded in Cologne.")
	f.embedAll(cs)
	lh, dlh = ent("Lufthansa", "airline", "German airline"), ent("Deutsche Lufthansa AG", "organization", "German flag carrier airline")
	munich, cologne = ent("Munich", "city", "city in Bavaria"), ent("Cologne", "city", "")
	hub1, hub2 := rel(lh, "FLIES_TO", munich, nil), rel(dlh, "FLIES_TO", munich, nil)
	hub1.Embedding, hub2.Embedding = axis(1), axis(2)
	f.extract(cs[0].ID, []graphrag.Entity{lh, munich}, hub1)
	f.extract(cs[1].ID, []graphrag.Entity{dlh, munich, cologne}, hub2, rel(dlh, "FOUNDED_IN", cologne, nil))
	return cs, lh, dlh, munich, cologne
}

// edit applies the plan of an edit to what GraphState reads for keys, recording e with Before and After.
func (f *fixture) edit(e graphrag.Edit, keys []string, plan func(graphrag.GraphPatch) (graphrag.GraphPatch, error)) graphrag.Edit {
	f.t.Helper()
	state, err := f.s.GraphState(f.ctx, keys)
	if err != nil {
		f.t.Fatalf("GraphState(%q): %v", keys, err)
	}
	after, err := plan(state)
	if err != nil {
		f.t.Fatalf("plan %s: %v", e.Kind, err)
	}
	e.After, e.Before = after, graphrag.Inverse(state, after)
	if e.Status == "" {
		e.Status = graphrag.EditApplied
	}
	if e.CreatedAt.IsZero() {
		e.CreatedAt = time.Now().UTC()
	}
	if err := f.s.ApplyEdit(f.ctx, e, after); err != nil {
		f.t.Fatalf("ApplyEdit(%s): %v", e.Kind, err)
	}
	return e
}

// undo undoes e as the handlers do.
func (f *fixture) undo(e graphrag.Edit) {
	f.t.Helper()
	current, err := f.s.GraphState(f.ctx, graphrag.SortedUnion(graphrag.PatchKeys(e.Before), graphrag.PatchKeys(e.After)))
	if err != nil {
		f.t.Fatalf("GraphState: %v", err)
	}
	u := graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditUndo, Status: graphrag.EditApplied, Keys: e.Keys,
		Target: e.ID, TargetStatus: graphrag.EditUndone, By: "user", CreatedAt: time.Now().UTC()}
	if err := f.s.ApplyEdit(f.ctx, u, graphrag.PlanUndo(e, current)); err != nil {
		f.t.Fatalf("ApplyEdit(undo): %v", err)
	}
}

// graphOf is what readers see of the entities keys: each with its name, type, aliases and chunks, and the
// relations around them with their ends and chunks.
func (f *fixture) graphOf(keys ...string) (map[string]graphrag.Entity, map[string]graphrag.Edge) {
	f.t.Helper()
	es, err := f.s.Entities(f.ctx, keys)
	if err != nil {
		f.t.Fatal(err)
	}
	ents := map[string]graphrag.Entity{}
	for _, e := range es {
		ents[e.Key] = e
	}
	edges := map[string]graphrag.Edge{}
	for _, e := range f.neighborhood(keys, 1, 100) {
		edges[e.ID] = e
	}
	return ents, edges
}

func testMergeUndo(t *testing.T, f *fixture) {
	cs, lh, dlh, munich, cologne := lufthansaGraph(f)
	keys := []string{lh.Key, dlh.Key, munich.Key, cologne.Key}
	beforeE, beforeR := f.graphOf(keys...)
	before := f.stats()
	docBefore := f.document(cs[0].DocID)
	m := f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditMerge, Keys: []string{lh.Key, dlh.Key},
		Names: []string{dlh.Name}, By: "user"}, []string{lh.Key, dlh.Key},
		func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanMerge(s, lh.Key, []string{dlh.Key})
		})

	if got := f.stats(); got.Entities != before.Entities-1 || got.Relations != before.Relations-1 {
		t.Errorf("after the merge %+v, want one entity and one relation fewer than %+v", got, before)
	}
	if es, _ := f.s.Entities(f.ctx, []string{dlh.Key}); len(es) != 0 {
		t.Errorf("the merged entity %q is still there", dlh.Key)
	}
	kept := f.entity(lh.Key)
	if kept.Name != "Lufthansa" || !slices.Contains(kept.Aliases, dlh.Name) || !sameSet(kept.ChunkIDs, []string{cs[0].ID, cs[1].ID}) {
		t.Errorf("kept entity = %q aliases %q chunks %v; want Lufthansa, also Deutsche Lufthansa AG, both chunks", kept.Name, kept.Aliases, kept.ChunkIDs)
	}
	if kept.Description != dlh.Description {
		t.Errorf("description %q, want the longer %q", kept.Description, dlh.Description)
	}
	if d := f.document(cs[0].DocID); d.Entities != docBefore.Entities-1 || d.Relations != docBefore.Relations-1 {
		t.Errorf("the document counts %d entities and %d relations after the merge, want %d and %d",
			d.Entities, d.Relations, docBefore.Entities-1, docBefore.Relations-1)
	}
	edges := f.neighborhood([]string{lh.Key}, 1, 10)
	byType := map[string]graphrag.Edge{}
	for _, e := range edges {
		byType[e.Type] = e
	}
	if hub := byType["FLIES_TO"]; len(edges) != 2 || !sameSet(hub.ChunkIDs, []string{cs[0].ID, cs[1].ID}) || hub.Target != munich.Key {
		t.Errorf("relations after the merge %+v; want FLIES_TO Munich from both chunks and FOUNDED_IN", edges)
	}
	if fo := byType["FOUNDED_IN"]; fo.Source != lh.Key || fo.ID != graphrag.RelationID(lh.Key, "FOUNDED_IN", cologne.Key) {
		t.Errorf("FOUNDED_IN = %+v, want it moved to %q", fo, lh.Key)
	}

	f.undo(m)
	afterE, afterR := f.graphOf(keys...)
	if got := f.stats(); got != before {
		t.Errorf("after the undo %+v, want %+v", got, before)
	}
	if d := f.document(cs[0].DocID); d.Entities != docBefore.Entities || d.Relations != docBefore.Relations {
		t.Errorf("the document counts %d entities and %d relations after the undo, want %d and %d",
			d.Entities, d.Relations, docBefore.Entities, docBefore.Relations)
	}
	for k, e := range beforeE {
		a := afterE[k]
		if a.Name != e.Name || a.Type != e.Type || a.Description != e.Description || !slices.Equal(a.Aliases, e.Aliases) || !slices.Equal(a.ChunkIDs, e.ChunkIDs) {
			t.Errorf("entity %q after the undo = %+v, want %+v", k, a, e)
		}
	}
	for id, e := range beforeR {
		a, ok := afterR[id]
		if !ok || a.Source != e.Source || a.Target != e.Target || !slices.Equal(a.ChunkIDs, e.ChunkIDs) {
			t.Errorf("relation %s after the undo = %+v (%v), want %+v", id, a, ok, e)
		}
	}
	if len(afterR) != len(beforeR) {
		t.Errorf("%d relations after the undo, want %d", len(afterR), len(beforeR))
	}
	got, err := f.s.Edits(f.ctx, graphrag.EditQuery{ID: m.ID})
	if err != nil || len(got) != 1 || got[0].Status != graphrag.EditUndone {
		t.Errorf("Edits(ID %s) = %+v, %v; want the merge, undone", m.ID, got, err)
	}
}

func testEditOnce(t *testing.T, f *fixture) {
	_, lh, _, _, _ := lufthansaGraph(f)
	e := f.edit(graphrag.Edit{ID: "e-rename", Kind: graphrag.EditRename, Keys: []string{lh.Key}, Name: "Lufthansa Airlines", By: "user"},
		[]string{lh.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanRename(s, lh.Key, "Lufthansa Airlines")
		})
	again, err := graphrag.PlanRename(e.After, lh.Key, "Something else")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.ApplyEdit(f.ctx, e, again); err != nil {
		t.Fatalf("ApplyEdit again: %v", err)
	}
	if got := f.entity(lh.Key).Name; got != "Lufthansa Airlines" {
		t.Errorf("name %q after the edit was applied again with another patch, want the first one's", got)
	}
	if got, _ := f.s.Edits(f.ctx, graphrag.EditQuery{}); len(got) != 1 {
		t.Errorf("%d edits recorded, want 1", len(got))
	}
}

func testSplit(t *testing.T, f *fixture) {
	d := f.doc("midway.txt", "midways")
	cs := f.chunks(d, "Midway is in Floyd County, Iowa.", "Midway is in Copiah County, Mississippi.")
	f.embedAll(cs)
	midway, floyd, copiah := ent("Midway", "location", ""), ent("Floyd County", "location", ""), ent("Copiah County", "location", "")
	f.extract(cs[0].ID, []graphrag.Entity{midway, floyd}, rel(midway, "LOCATED_IN", floyd, nil))
	f.extract(cs[1].ID, []graphrag.Entity{midway, copiah}, rel(midway, "LOCATED_IN", copiah, nil))
	newKey := graphrag.NormalizeKey("Midway, Mississippi")
	s := f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditSplit, Keys: []string{midway.Key, newKey},
		Name: "Midway, Mississippi", Chunks: []string{cs[1].ID}, By: "user"}, []string{midway.Key, newKey},
		func(st graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanSplit(st, midway.Key, "Midway, Mississippi", "", []string{cs[1].ID})
		})
	if m := f.entity(midway.Key); !slices.Equal(m.ChunkIDs, []string{cs[0].ID}) {
		t.Errorf("Midway's chunks %v, want only the first", m.ChunkIDs)
	}
	n := f.entity(newKey)
	if n.Name != "Midway, Mississippi" || n.Type != "location" || !slices.Equal(n.ChunkIDs, []string{cs[1].ID}) {
		t.Errorf("split-off entity = %+v, want Midway, Mississippi (location) in the second chunk", n)
	}
	edges := f.neighborhood([]string{newKey}, 1, 10)
	if len(edges) != 1 || edges[0].Target != copiah.Key {
		t.Errorf("the new entity's relations %+v, want LOCATED_IN Copiah County", edges)
	}
	if edges := f.neighborhood([]string{midway.Key}, 1, 10); len(edges) != 1 || edges[0].Target != floyd.Key {
		t.Errorf("Midway's relations %+v, want only LOCATED_IN Floyd County", edges)
	}
	// a new extraction of the moved passage names Midway again: the split holds
	x, err := graphrag.ApplyEditsFrom(f.ctx, f.s, graphrag.Extraction{ChunkID: cs[1].ID, Entities: []graphrag.Entity{midway, copiah},
		Relations: []graphrag.Relation{rel(midway, "LOCATED_IN", copiah, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if x.Entities[0].Key != newKey || x.Relations[0].Source != newKey {
		t.Errorf("re-extraction rewritten to %+v, want Midway of the second passage under %q", x, newKey)
	}
	f.undo(s)
	if m := f.entity(midway.Key); !sameSet(m.ChunkIDs, []string{cs[0].ID, cs[1].ID}) {
		t.Errorf("after the undo Midway's chunks are %v, want both", m.ChunkIDs)
	}
	if es, _ := f.s.Entities(f.ctx, []string{newKey}); len(es) != 0 {
		t.Errorf("after the undo the split-off entity is still there")
	}
}

func testEditRules(t *testing.T, f *fixture) {
	cs, lh, dlh, munich, cologne := lufthansaGraph(f)
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditMerge, Keys: []string{lh.Key, dlh.Key}, By: "user"},
		[]string{lh.Key, dlh.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanMerge(s, lh.Key, []string{dlh.Key})
		})
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditRename, Keys: []string{munich.Key}, Name: "München", By: "user"},
		[]string{munich.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanRename(s, munich.Key, "München")
		})
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditRetype, Keys: []string{munich.Key}, Type: "capital", By: "user"},
		[]string{munich.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanRetype(s, munich.Key, "capital")
		})
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditAlias, Keys: []string{lh.Key}, Name: "LH", By: "user"},
		[]string{lh.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) { return graphrag.PlanAlias(s, lh.Key, "LH") })
	founded := graphrag.RelationID(lh.Key, "FOUNDED_IN", cologne.Key)
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditDeleteRelation, Keys: []string{lh.Key, cologne.Key}, Relation: founded, By: "user"},
		[]string{lh.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanDeleteRelation(s, founded)
		})
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditDeleteEntity, Keys: []string{cologne.Key}, By: "user"},
		[]string{cologne.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanDeleteEntity(s, cologne.Key)
		})

	m := f.entity(munich.Key)
	if m.Name != "München" || m.Type != "capital" || !slices.Contains(m.Aliases, "Munich") {
		t.Errorf("Munich after rename and retype = %q (%s) aliases %q", m.Name, m.Type, m.Aliases)
	}
	if found, _ := f.s.SearchEntities(f.ctx, "LH", 5); len(found) == 0 || found[0].Key != lh.Key {
		t.Errorf("SearchEntities(LH) = %+v, want the alias to find Lufthansa", found)
	}
	// the passage is extracted again, as re-ingesting it does: every edit holds
	x := graphrag.Extraction{ChunkID: cs[1].ID, Entities: []graphrag.Entity{dlh, munich, cologne, ent("LH", "", "")},
		Relations: []graphrag.Relation{rel(dlh, "FLIES_TO", munich, nil), rel(dlh, "FOUNDED_IN", cologne, nil)}}
	x, err := graphrag.ApplyEditsFrom(f.ctx, f.s, x)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.PutExtraction(f.ctx, x); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{dlh.Key, cologne.Key, graphrag.NormalizeKey("LH")} {
		if es, _ := f.s.Entities(f.ctx, []string{k}); len(es) != 0 {
			t.Errorf("entity %q is back after re-extraction", k)
		}
	}
	if got := f.entity(munich.Key); got.Name != "München" || got.Type != "capital" {
		t.Errorf("Munich after re-extraction = %q (%s), want the rename and retype kept", got.Name, got.Type)
	}
	edges := f.neighborhood([]string{lh.Key}, 1, 10)
	if len(edges) != 1 || edges[0].Type != "FLIES_TO" {
		t.Errorf("Lufthansa's relations after re-extraction %+v, want FLIES_TO only (FOUNDED_IN deleted, Cologne deleted)", edges)
	}
}

func testEditsQuery(t *testing.T, f *fixture) {
	_, lh, dlh, munich, _ := lufthansaGraph(f)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	proposal := graphrag.Edit{ID: graphrag.ProposalID(lh.Key, dlh.Key), Kind: graphrag.EditMerge, Status: graphrag.EditProposed,
		Keys: []string{lh.Key, dlh.Key}, Names: []string{lh.Name, dlh.Name}, By: "resolver", Rule: "possible short form",
		Score: 0.6, Evidence: []string{"one name inside the other"}, CreatedAt: t0}
	for range 2 {
		if err := f.s.ApplyEdit(f.ctx, proposal, graphrag.GraphPatch{}); err != nil {
			t.Fatal(err)
		}
	}
	other := graphrag.Edit{ID: graphrag.ProposalID(munich.Key, lh.Key), Kind: graphrag.EditMerge, Status: graphrag.EditProposed,
		Keys: []string{munich.Key, lh.Key}, By: "resolver", CreatedAt: t0.Add(time.Minute)}
	if err := f.s.ApplyEdit(f.ctx, other, graphrag.GraphPatch{}); err != nil {
		t.Fatal(err)
	}
	proposed, err := f.s.Edits(f.ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}})
	if err != nil || len(proposed) != 2 || proposed[0].ID != other.ID {
		t.Fatalf("proposals = %+v, %v; want both, newest first", proposed, err)
	}
	p := proposed[1]
	if p.Rule != proposal.Rule || p.Score != proposal.Score || !slices.Equal(p.Evidence, proposal.Evidence) || !p.CreatedAt.Equal(t0) {
		t.Errorf("proposal read back = %+v, want %+v", p, proposal)
	}
	byName, err := f.s.Edits(f.ctx, graphrag.EditQuery{Keys: []string{dlh.Key}})
	if err != nil || len(byName) != 1 || byName[0].ID != proposal.ID {
		t.Errorf("Edits(keys %q) = %+v, %v; want the one proposal", dlh.Key, byName, err)
	}
	no := graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditDistinct, Status: graphrag.EditApplied, Keys: []string{munich.Key, lh.Key},
		Target: other.ID, TargetStatus: graphrag.EditRejected, By: "user", CreatedAt: t0.Add(2 * time.Minute)}
	if err := f.s.ApplyEdit(f.ctx, no, graphrag.GraphPatch{}); err != nil {
		t.Fatal(err)
	}
	left, err := f.s.Edits(f.ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}})
	if err != nil || len(left) != 1 || left[0].ID != proposal.ID {
		t.Errorf("proposals after one was rejected = %+v, %v; want the other only", left, err)
	}
	distinct, err := f.s.Edits(f.ctx, graphrag.EditQuery{Kinds: []graphrag.EditKind{graphrag.EditDistinct}, Keys: []string{lh.Key}})
	if err != nil || len(distinct) != 1 || distinct[0].Target != other.ID {
		t.Errorf("distinct edits of %q = %+v, %v", lh.Key, distinct, err)
	}
}
