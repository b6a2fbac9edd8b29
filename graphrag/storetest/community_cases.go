package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var communityCases = []testCase{
	{"GraphLinks lists every relation with its ends and passages, and forgets a deleted document's", testGraphLinks},
	{"communities round-trip in order; a summary survives recomputing only while its community is the same", testCommunitySummaries},
	{"a summary for a community that changed meanwhile is refused", testStaleSummary},
}

// twoGroups stores two documents: one relating Munich, Delhi and Lufthansa, one relating Nexa, Vogt and
// Lisbon, with Lufthansa's relation to Munich in both.
func twoGroups(f *fixture) (a, b graphrag.Document, ca, cb []graphrag.Chunk, rels []graphrag.Relation) {
	a, b = f.doc("travel.txt", "travel"), f.doc("company.txt", "company")
	ca, cb = f.chunks(a, "Lufthansa flies Munich to Delhi."), f.chunks(b, "Nexa, led by Lena Vogt, is in Lisbon. Lufthansa is based in Munich.")
	f.embedAll(slices.Concat(ca, cb))
	munich, delhi, lh := ent("Munich", "city", ""), ent("Delhi", "city", ""), ent("Lufthansa", "airline", "")
	nexa, vogt, lisbon := ent("Nexa", "organization", ""), ent("Lena Vogt", "person", ""), ent("Lisbon", "city", "")
	flies, based, dist := rel(lh, "FLIES_TO", delhi, nil), rel(lh, "BASED_IN", munich, nil), rel(munich, "DISTANCE_FROM", delhi, nil)
	leads, hq := rel(vogt, "LEADS", nexa, nil), rel(nexa, "LOCATED_IN", lisbon, nil)
	f.extract(ca[0].ID, []graphrag.Entity{munich, delhi, lh}, flies, based, dist)
	f.extract(cb[0].ID, []graphrag.Entity{nexa, vogt, lisbon, lh, munich}, leads, hq, based)
	return a, b, ca, cb, []graphrag.Relation{flies, based, dist, leads, hq}
}

func (f *fixture) links() map[string]graphrag.Link {
	f.t.Helper()
	links, err := f.s.GraphLinks(f.ctx)
	if err != nil {
		f.t.Fatalf("GraphLinks: %v", err)
	}
	out := map[string]graphrag.Link{}
	for i, l := range links {
		if i > 0 && links[i-1].ID >= l.ID {
			f.t.Errorf("GraphLinks not ordered by ID: %s before %s", links[i-1].ID, l.ID)
		}
		out[l.ID] = l
	}
	return out
}

func testGraphLinks(t *testing.T, f *fixture) {
	a, _, ca, cb, rels := twoGroups(f)
	links := f.links()
	if len(links) != len(rels) {
		t.Fatalf("GraphLinks = %d links, want %d", len(links), len(rels))
	}
	for _, r := range rels {
		l := links[r.ID]
		if l.Source != r.Source || l.Target != r.Target {
			t.Errorf("link %s = %s -> %s, want %s -> %s", r.ID, l.Source, l.Target, r.Source, r.Target)
		}
	}
	based := rels[1]
	if !sameSet(links[based.ID].ChunkIDs, []string{ca[0].ID, cb[0].ID}) {
		t.Errorf("BASED_IN chunks %v, want both documents' chunks", links[based.ID].ChunkIDs)
	}
	if err := f.s.DeleteDocument(f.ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	links = f.links()
	if len(links) != 3 || !slices.Equal(links[based.ID].ChunkIDs, []string{cb[0].ID}) {
		t.Errorf("after deleting %s: %d links, BASED_IN chunks %v; want 3 links and only %s", a.Name, len(links), links[based.ID].ChunkIDs, cb[0].ID)
	}
}

func (f *fixture) communities() []graphrag.Community {
	f.t.Helper()
	cs, err := f.s.Communities(f.ctx)
	if err != nil {
		f.t.Fatalf("Communities: %v", err)
	}
	return cs
}

func (f *fixture) putCommunities(cs []graphrag.Community) {
	f.t.Helper()
	if err := f.s.PutCommunities(f.ctx, cs); err != nil {
		f.t.Fatalf("PutCommunities: %v", err)
	}
}

func testCommunitySummaries(t *testing.T, f *fixture) {
	twoGroups(f)
	links, err := f.s.GraphLinks(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	detected := graphrag.DetectCommunities(links)
	if len(detected) < 1 {
		t.Fatalf("no community detected among %d links", len(links))
	}
	f.putCommunities(detected)
	got := f.communities()
	if len(got) != len(detected) {
		t.Fatalf("Communities = %d, want %d", len(got), len(detected))
	}
	for i := range got {
		w := detected[i]
		if got[i].ID != w.ID || got[i].Signature != w.Signature || !slices.Equal(got[i].Entities, w.Entities) ||
			!slices.Equal(got[i].Relations, w.Relations) || !slices.Equal(got[i].ChunkIDs, w.ChunkIDs) || got[i].Weight != w.Weight {
			t.Errorf("community %d = %+v, want %+v", i, got[i], w)
		}
		if got[i].Summarized() {
			t.Errorf("community %s has a summary before any was written", got[i].ID)
		}
	}
	first := got[0]
	if err := f.s.SetCommunitySummary(f.ctx, first.ID, first.Signature, "Travel", "Lufthansa flies from Munich."); err != nil {
		t.Fatal(err)
	}
	// The same communities again, even with other summaries given: the stored summary stays.
	again := slices.Clone(detected)
	again[0].Summary = "ignored"
	f.putCommunities(again)
	got = f.communities()
	if got[0].Title != "Travel" || got[0].Summary != "Lufthansa flies from Munich." || got[0].SummarizedAt.IsZero() {
		t.Errorf("after recomputing the same communities: %q %q at %v, want the stored summary kept", got[0].Title, got[0].Summary, got[0].SummarizedAt)
	}
	// The community changes (a document removed): its summary goes, and communities no longer found go.
	changed := first
	changed.Signature = "other"
	f.putCommunities([]graphrag.Community{changed})
	got = f.communities()
	if len(got) != 1 || got[0].Signature != "other" || got[0].Summarized() || got[0].Title != "" {
		t.Errorf("after the community changed: %+v, want one community without summary", got)
	}
	f.putCommunities(nil)
	if got := f.communities(); len(got) != 0 {
		t.Errorf("after putting none: %d communities, want 0", len(got))
	}
}

func testStaleSummary(t *testing.T, f *fixture) {
	c := graphrag.Community{ID: "com-1", Signature: "s1", Entities: []string{"a", "b"}, Relations: []string{"r"}, ChunkIDs: []string{"c"}, Weight: 1}
	f.putCommunities([]graphrag.Community{c})
	err := f.s.SetCommunitySummary(f.ctx, c.ID, "s0", "Old", "written for an earlier version")
	if !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("SetCommunitySummary with another signature = %v, want ErrNotFound", err)
	}
	if err := f.s.SetCommunitySummary(f.ctx, "com-2", "s1", "None", "no such community"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("SetCommunitySummary of an unknown community = %v, want ErrNotFound", err)
	}
	if got := f.communities(); len(got) != 1 || got[0].Summarized() {
		t.Errorf("communities after refused summaries = %+v, want one without summary", got)
	}
}
