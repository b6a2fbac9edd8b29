package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

func init() {
	graphCases = append(graphCases, testCase{"LinkCandidates reads keys and name words without provenance", testLinkCandidates})
	replaceCases = append(replaceCases, testCase{"Generation changes with every delete, replace and re-extraction commit, and only then", testGeneration})
	replaceCases = append(replaceCases, testCase{"HoldCommits holds this process's replaces and deletes off until released", testHoldCommits})
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

// testHoldCommits: a replace and a delete started during a hold wait for its release, while searches
// and reads of the graph (what a held retrieval pass makes) go on; the hold's two generations are equal,
// and the commits are counted once they are let go.
func testHoldCommits(t *testing.T, f *fixture) {
	holder, ok := f.s.(graphrag.CommitHolder)
	if !ok {
		t.Skipf("%T does not hold commits", f.s)
	}
	a := f.doc("a.txt", "version 1")
	ca := f.chunks(a, "Munich to Delhi is 5,921 km.")
	f.embedAll(ca)
	f.extract(ca[0].ID, []graphrag.Entity{ent("Munich", "CITY", "city")})
	b := f.doc("b.txt", "other")
	f.embedAll(f.chunks(b, "Lufthansa flies from Munich."))
	a2 := f.staged(a, "version 2")
	f.embedAll(f.chunks(a2, "Munich to Delhi is 5,922 km."))

	gen, release, err := holder.HoldCommits(f.ctx)
	if err != nil {
		t.Fatalf("HoldCommits: %v", err)
	}
	committed := make(chan string, 2)
	go func() {
		if err := f.s.ReplaceDocument(f.ctx, a2.ID); err != nil {
			t.Errorf("ReplaceDocument during a hold: %v", err)
		}
		committed <- "replace"
	}()
	go func() {
		if err := f.s.DeleteDocument(f.ctx, b.ID); err != nil {
			t.Errorf("DeleteDocument during a hold: %v", err)
		}
		committed <- "delete"
	}()
	// The commits are waiting (or about to): reads that a pass makes still answer, and see the old
	// version and the document not yet deleted.
	time.Sleep(200 * time.Millisecond)
	for range 3 {
		got, err := f.s.SearchText(f.ctx, "Munich", 5)
		if err != nil || !sameSet(docIDsOf(got), []string{a.ID, b.ID}) {
			t.Errorf("SearchText during a hold = %v, %v; want the passages of %s and %s", docIDsOf(got), err, a.ID, b.ID)
		}
		if _, err := f.s.SearchVector(f.ctx, axis(0), 5); err != nil {
			t.Errorf("SearchVector during a hold: %v", err)
		}
		if _, err := f.s.Neighborhood(f.ctx, []string{ent("Munich", "CITY", "").Key}, 2, 10); err != nil {
			t.Errorf("Neighborhood during a hold: %v", err)
		}
	}
	select {
	case c := <-committed:
		t.Errorf("the %s committed during the hold", c)
	default:
	}
	after, err := release()
	if err != nil || after != gen {
		t.Errorf("release() = %d, %v; want %d, the generation the hold began with", after, err, gen)
	}
	for range 2 {
		select {
		case <-committed:
		case <-time.After(30 * time.Second):
			t.Fatalf("the commits held off did not run within 30 s of the release")
		}
	}
	if g, err := f.s.Generation(f.ctx); err != nil || g < gen+2 {
		t.Errorf("Generation after the release = %d, %v; want at least %d (the replace and the delete)", g, err, gen+2)
	}
}

func docIDsOf(cs []graphrag.ScoredChunk) []string {
	var out []string
	for _, c := range cs {
		if !slices.Contains(out, c.DocID) {
			out = append(out, c.DocID)
		}
	}
	return out
}
