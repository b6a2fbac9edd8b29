package storetest

import (
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

func init() {
	graphCases = append(graphCases, testCase{"LinkCandidates reads keys and name words without provenance", testLinkCandidates})
	replaceCases = append(replaceCases, testCase{"Generation changes with every delete, replace and re-extraction commit, and only then", testGeneration})
}

// testLinkCandidates: the keys come back in the order asked, unknown ones skipped, and the words' matches
// as SearchEntities ranks them, each with its name, type, description and aliases but no mentions.
func testLinkCandidates(t *testing.T, f *fixture) {
	d := f.doc("aviation.txt", "aviation")
	cs := f.chunks(d, "Lufthansa hub Munich Airport (MUC) in München.", "Munich again.")
	lh := ent("Deutsche Lufthansa AG", "ORGANIZATION", "airline", "LH", "Lufthansa")
	munich := ent("Munich", "CITY", "city", "München")
	airport := ent("Munich Airport", "AIRPORT", "airport", "MUC")
	f.extract(cs[0].ID, []graphrag.Entity{lh, munich, airport})
	f.extract(cs[1].ID, []graphrag.Entity{munich})
	keysOf := func(es []graphrag.Entity) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Key)
			if len(e.ChunkIDs) != 0 || len(e.DocIDs) != 0 {
				t.Errorf("LinkCandidates: %s comes with provenance %v %v, want none", e.Key, e.ChunkIDs, e.DocIDs)
			}
		}
		return out
	}
	byKey, byWords, err := f.s.LinkCandidates(f.ctx, []string{airport.Key, "atlantis", munich.Key, airport.Key}, "flights from MUC?", 3)
	if err != nil {
		t.Fatalf("LinkCandidates: %v", err)
	}
	if got := keysOf(byKey); !slices.Equal(got, []string{airport.Key, munich.Key}) {
		t.Errorf("LinkCandidates by key = %v, want [%s %s]", got, airport.Key, munich.Key)
	}
	if got := keysOf(byWords); len(got) == 0 || got[0] != airport.Key {
		t.Errorf("LinkCandidates by words = %v, want %s first", got, airport.Key)
	}
	if len(byKey) > 0 && (byKey[0].Name != airport.Name || byKey[0].Type != airport.Type || byKey[0].Description != airport.Description ||
		!sameSet(byKey[0].Aliases, airport.Aliases)) {
		t.Errorf("LinkCandidates read %+v, want the name, type, description and aliases of %+v", byKey[0], airport)
	}
	searched, err := f.s.SearchEntities(f.ctx, "lufthansa munich", 3)
	if err != nil {
		t.Fatal(err)
	}
	_, byWords, err = f.s.LinkCandidates(f.ctx, nil, "lufthansa munich", 3)
	if err != nil || !slices.Equal(keysOf(byWords), keysOfEntities(searched)) {
		t.Errorf("LinkCandidates by words = %v, %v; want SearchEntities' %v", keysOf(byWords), err, keysOfEntities(searched))
	}
	for _, q := range []string{``, `"`, `AND OR`, `name:LH`} {
		byKey, byWords, err := f.s.LinkCandidates(f.ctx, nil, q, 3)
		if err != nil || len(byKey) != 0 || len(byWords) > 3 {
			t.Errorf("LinkCandidates(no keys, %q) = %d, %d entities, %v; want none by key, at most 3, no error", q, len(byKey), len(byWords), err)
		}
	}
}

func keysOfEntities(es []graphrag.Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key)
	}
	return out
}

// testGeneration: writes that add leave the generation as it is; a replace, a delete and the commit of a
// re-extraction of the graph each change it, so a reader that reads it around its reads knows whether one
// committed between them.
func testGeneration(t *testing.T, f *fixture) {
	gen := func() uint64 {
		t.Helper()
		g, err := f.s.Generation(f.ctx)
		if err != nil {
			t.Fatalf("Generation: %v", err)
		}
		return g
	}
	g0 := gen()
	a := f.doc("a.txt", "version 1")
	ca := f.chunks(a, "Munich to Delhi is 5,921 km.")
	f.embedAll(ca)
	f.extract(ca[0].ID, []graphrag.Entity{ent("Munich", "CITY", "city")})
	if g := gen(); g != g0 {
		t.Errorf("Generation after adding a document = %d, want %d (unchanged)", g, g0)
	}
	a2 := f.staged(a, "version 2")
	f.embedAll(f.chunks(a2, "Munich to Delhi is 5,922 km."))
	if g := gen(); g != g0 {
		t.Errorf("Generation while a new version is staged = %d, want %d (unchanged)", g, g0)
	}
	if err := f.s.ReplaceDocument(f.ctx, a2.ID); err != nil {
		t.Fatalf("ReplaceDocument: %v", err)
	}
	g1 := gen()
	if g1 == g0 {
		t.Errorf("Generation after a replace = %d, want another than %d", g1, g0)
	}
	if err := f.s.DeleteDocument(f.ctx, a2.ID); err != nil {
		t.Fatalf("DeleteDocument: %v", err)
	}
	g2 := gen()
	if g2 == g1 || g2 == g0 {
		t.Errorf("Generation after a delete = %d, want another than %d and %d", g2, g0, g1)
	}
	// A re-extraction changes it when it swaps the new graph in, not while it stages it.
	x := newReextractFixture(f)
	f.beginReextract("model-2")
	f.stageReextraction(x.newExtraction(), false)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[1].ID}, true)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[2].ID}, true)
	if g := gen(); g != g2 {
		t.Errorf("Generation while a re-extraction is staged = %d, want %d (unchanged)", g, g2)
	}
	if err := f.s.CommitReextract(f.ctx); err != nil {
		t.Fatalf("CommitReextract: %v", err)
	}
	if g := gen(); g == g2 || g == g1 || g == g0 {
		t.Errorf("Generation after a re-extraction's commit = %d, want another than %d, %d and %d", g, g0, g1, g2)
	}
}
