package storetest

import (
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var neighborhoodCases = []testCase{
	{"walks one and two hops in both directions", testNeighborhood},
}

// graphFixture is a small graph, one relation per chunk:
//
//	Delhi -DISTANCE_FROM-> Munich <-HUB_AT- Lufthansa
//	Munich -LOCATED_IN-> Germany -PART_OF-> Europe <-USED_IN- Euro (three hops from Munich)
//	Delhi -LOCATED_IN-> India
//	Tokyo -DISTANCE_FROM-> Osaka (apart)
type graphFixture struct {
	doc    graphrag.Document
	chunks []graphrag.Chunk
	ents   map[string]graphrag.Entity
	rels   map[string]graphrag.Relation
}

func buildGraph(f *fixture) graphFixture {
	f.t.Helper()
	g := graphFixture{ents: map[string]graphrag.Entity{}, rels: map[string]graphrag.Relation{}}
	for _, n := range []string{"Delhi", "Munich", "Lufthansa", "Germany", "Europe", "Euro", "India", "Tokyo", "Osaka"} {
		g.ents[n] = ent(n, "THING", "")
	}
	edges := []struct{ name, source, typ, target string }{
		{"delhi-munich", "Delhi", "DISTANCE_FROM", "Munich"},
		{"lh-munich", "Lufthansa", "HUB_AT", "Munich"},
		{"munich-germany", "Munich", "LOCATED_IN", "Germany"},
		{"germany-europe", "Germany", "PART_OF", "Europe"},
		{"euro-europe", "Euro", "USED_IN", "Europe"},
		{"delhi-india", "Delhi", "LOCATED_IN", "India"},
		{"tokyo-osaka", "Tokyo", "DISTANCE_FROM", "Osaka"},
	}
	g.doc = f.doc("graph.txt", "graph")
	texts := make([]string, len(edges))
	for i, e := range edges {
		texts[i] = e.source + " " + e.typ + " " + e.target
	}
	g.chunks = f.chunks(g.doc, texts...)
	for i, e := range edges {
		s, t := g.ents[e.source], g.ents[e.target]
		r := rel(s, e.typ, t, nil)
		g.rels[e.name] = r
		f.extract(g.chunks[i].ID, []graphrag.Entity{s, t}, r)
	}
	return g
}

func (g graphFixture) relIDs(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = g.rels[n].ID
	}
	return out
}

func testNeighborhood(t *testing.T, f *fixture) {
	g := buildGraph(f)
	munich, germany := g.ents["Munich"].Key, g.ents["Germany"].Key
	hop1 := g.relIDs("delhi-munich", "lh-munich", "munich-germany")
	hop2 := g.relIDs("germany-europe", "delhi-india")
	tests := []struct {
		name     string
		keys     []string
		hops     int
		limit    int
		wantHop1 []string
		wantHop2 []string
		wantN    int
	}{
		{"one hop, incoming and outgoing", []string{munich}, 1, 10, hop1, nil, 3},
		{"two hops, nearest first", []string{munich}, 2, 10, hop1, hop2, 5},
		{"limit cuts the farther hop first", []string{munich}, 2, 3, hop1, nil, 3},
		{"limit within the first hop", []string{munich}, 2, 2, hop1, nil, 2},
		{"limit inside the second hop", []string{munich}, 2, 4, hop1, hop2, 4},
		{"start in the middle", []string{germany}, 1, 10, g.relIDs("munich-germany", "germany-europe"), nil, 2},
		{"several starts", []string{g.ents["Tokyo"].Key, g.ents["India"].Key}, 1, 10, g.relIDs("tokyo-osaka", "delhi-india"), nil, 2},
		{"unknown start", []string{"atlantis"}, 2, 10, nil, nil, 0},
	}
	for _, tc := range tests {
		edges := f.neighborhood(tc.keys, tc.hops, tc.limit)
		if len(edges) != tc.wantN {
			t.Errorf("%s: %d edges %v, want %d", tc.name, len(edges), edgeIDs(edges), tc.wantN)
			continue
		}
		var got1, got2 []string
		for i, e := range edges {
			switch e.Hop {
			case 1:
				got1 = append(got1, e.ID)
				if len(got2) > 0 {
					t.Errorf("%s: hop-1 edge %s after a hop-2 edge", tc.name, e.ID)
				}
			case 2:
				got2 = append(got2, e.ID)
			default:
				t.Errorf("%s: edge %d has hop %d", tc.name, i, e.Hop)
			}
		}
		if !subset(got1, tc.wantHop1) || len(got1) < min(tc.wantN, len(tc.wantHop1)) {
			t.Errorf("%s: hop-1 edges %v, want from %v", tc.name, got1, tc.wantHop1)
		}
		if !subset(got2, tc.wantHop2) {
			t.Errorf("%s: hop-2 edges %v, want from %v", tc.name, got2, tc.wantHop2)
		}
	}
	edges := f.neighborhood([]string{g.ents["Delhi"].Key}, 1, 10)
	for _, e := range edges {
		if e.ID != g.rels["delhi-munich"].ID {
			continue
		}
		if e.SourceName != "Delhi" || e.TargetName != "Munich" || e.Type != "DISTANCE_FROM" {
			t.Errorf("edge names %q -%s-> %q, want Delhi -DISTANCE_FROM-> Munich", e.SourceName, e.Type, e.TargetName)
		}
		if !slices.Equal(e.ChunkIDs, []string{g.chunks[0].ID}) || !slices.Equal(e.DocIDs, []string{g.doc.ID}) {
			t.Errorf("edge provenance chunks %v docs %v, want [%s] [%s]", e.ChunkIDs, e.DocIDs, g.chunks[0].ID, g.doc.ID)
		}
		return
	}
	t.Errorf("Neighborhood(Delhi) = %v, lacks delhi-munich", edgeIDs(edges))
}

// subset reports whether every string of a is in b and none repeats.
func subset(a, b []string) bool {
	seen := map[string]bool{}
	for _, s := range a {
		if seen[s] || !slices.Contains(b, s) {
			return false
		}
		seen[s] = true
	}
	return true
}
