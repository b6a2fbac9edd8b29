package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var graphCases = []testCase{
	{"PutExtraction twice leaves no duplicates", testExtractionTwice},
	{"documents sharing an entity make one entity with both provenances", testSharedEntity},
	{"a relation from two chunks unions provenance and values", testSharedRelation},
	{"descriptions in any script merge by characters, not bytes", testNonASCIIMerge},
	{"an extraction without its keys and IDs is refused", testUnresolvedExtraction},
	{"Entities skips unknown keys and keeps the order asked", testEntitiesOrder},
	{"SearchEntities finds names and aliases", testSearchEntities},
}

func testExtractionTwice(t *testing.T, f *fixture) {
	d := f.doc("distance.txt", "distance")
	cs := f.chunks(d, "Munich to Delhi: 5,921 km.")
	f.embedAll(cs)
	munich, delhi := ent("Munich", "CITY", "city in Bavaria", "München"), ent("Delhi", "CITY", "capital of India")
	r := rel(delhi, "DISTANCE_FROM", munich, map[string]any{"distance_km": 5921})
	for range 2 {
		f.extract(cs[0].ID, []graphrag.Entity{munich, delhi}, r)
	}
	f.wantStats("after PutExtraction twice", graphrag.Stats{Documents: 1, Chunks: 1, Embedded: 1, Entities: 2, Relations: 1, Mentions: 2})
	e := f.entity(munich.Key)
	if !sameSet(e.Aliases, []string{"Munich", "München"}) || len(e.Aliases) != 2 {
		t.Errorf("aliases %q, want Munich and München once each", e.Aliases)
	}
	if !slices.Equal(e.ChunkIDs, []string{cs[0].ID}) || !slices.Equal(e.DocIDs, []string{d.ID}) {
		t.Errorf("provenance chunks %v docs %v, want [%s] [%s]", e.ChunkIDs, e.DocIDs, cs[0].ID, d.ID)
	}
	if e.Name != "Munich" || e.Type != "CITY" || e.Description != "city in Bavaria" {
		t.Errorf("entity = name %q type %q description %q", e.Name, e.Type, e.Description)
	}
	edges := f.neighborhood([]string{munich.Key}, 1, 10)
	if len(edges) != 1 || !slices.Equal(edges[0].ChunkIDs, []string{cs[0].ID}) {
		t.Fatalf("Neighborhood = %+v, want one edge supported once", edges)
	}
	if got := fmt.Sprint(edges[0].Values["distance_km"]); got != "5921" {
		t.Errorf("distance_km = %s, want 5921", got)
	}
	chunks, err := f.s.Chunks(f.ctx, []string{cs[0].ID})
	if err != nil || len(chunks) != 1 || chunks[0].Status != graphrag.ChunkExtracted {
		t.Errorf("chunk after extraction = %+v, %v; want status extracted", chunks, err)
	}
}

func testSharedEntity(t *testing.T, f *fixture) {
	names := []string{"Deutsche Lufthansa AG", "deutsche  lufthansa", "Deutsche Lufthansa, A.G."}
	key := graphrag.NormalizeKey(names[0])
	for _, n := range names[1:] {
		if graphrag.NormalizeKey(n) != key {
			t.Fatalf("NormalizeKey(%q) = %q, want %q: the fixture assumes these resolve together", n, graphrag.NormalizeKey(n), key)
		}
	}
	a, b := f.doc("a.txt", "document A"), f.doc("b.txt", "document B")
	ca, cb := f.chunks(a, "Lufthansa flies from Munich.", "Lufthansa again."), f.chunks(b, "Deutsche Lufthansa AG annual report.")
	short := graphrag.Entity{Key: key, Name: names[0], Type: "ORGANIZATION", Description: "airline", Aliases: []string{names[0]}}
	long := graphrag.Entity{Key: key, Name: names[1], Type: "ORGANIZATION", Description: "German flag carrier airline", Aliases: []string{names[1], "LH"}}
	third := graphrag.Entity{Key: key, Name: names[2], Type: "ORGANIZATION", Description: "an airline"}
	f.extract(ca[0].ID, []graphrag.Entity{short})
	f.extract(cb[0].ID, []graphrag.Entity{long})
	f.extract(ca[1].ID, []graphrag.Entity{third})
	f.wantStats("after three mentions", graphrag.Stats{Documents: 2, Chunks: 3, Entities: 1, Mentions: 3})
	e := f.entity(key)
	if !sameSet(e.Aliases, append(slices.Clone(names), "LH")) || len(e.Aliases) != 4 {
		t.Errorf("aliases %q, want every surface name once and LH", e.Aliases)
	}
	if e.Description != long.Description {
		t.Errorf("description %q, want the longer %q", e.Description, long.Description)
	}
	if !sameSet(e.ChunkIDs, []string{ca[0].ID, ca[1].ID, cb[0].ID}) || len(e.ChunkIDs) != 3 {
		t.Errorf("chunks %v, want the three mentions", e.ChunkIDs)
	}
	if !sameSet(e.DocIDs, []string{a.ID, b.ID}) || len(e.DocIDs) != 2 {
		t.Errorf("documents %v, want [%s %s]", e.DocIDs, a.ID, b.ID)
	}
	if got := f.document(a.ID).Entities; got != 1 {
		t.Errorf("document A counts %d entities, want 1", got)
	}
}

func testSharedRelation(t *testing.T, f *fixture) {
	a, b := f.doc("a.txt", "document A"), f.doc("b.txt", "document B")
	ca, cb := f.chunks(a, "Delhi - Munich 5921 km"), f.chunks(b, "Munich and Delhi are 5,921 kilometres apart")
	munich, delhi := ent("Munich", "CITY", ""), ent("Delhi", "CITY", "")
	r1 := rel(delhi, "DISTANCE_FROM", munich, map[string]any{"distance_km": 5921})
	r2 := r1
	r2.Values = map[string]any{"unit": "km"}
	r2.Description = "Delhi is 5,921 km from Munich by great-circle distance"
	f.extract(ca[0].ID, []graphrag.Entity{munich, delhi}, r1)
	f.extract(cb[0].ID, []graphrag.Entity{munich, delhi}, r2)
	f.wantStats("after one relation from two documents", graphrag.Stats{Documents: 2, Chunks: 2, Entities: 2, Relations: 1, Mentions: 4})
	edges := f.neighborhood([]string{delhi.Key}, 1, 10)
	if len(edges) != 1 {
		t.Fatalf("Neighborhood = %d edges, want 1", len(edges))
	}
	e := edges[0]
	if e.ID != r1.ID || e.Source != delhi.Key || e.Target != munich.Key || e.Type != "DISTANCE_FROM" {
		t.Errorf("edge = %s %s -%s-> %s, want %s %s -DISTANCE_FROM-> %s", e.ID, e.Source, e.Type, e.Target, r1.ID, delhi.Key, munich.Key)
	}
	if !sameSet(e.ChunkIDs, []string{ca[0].ID, cb[0].ID}) || !sameSet(e.DocIDs, []string{a.ID, b.ID}) {
		t.Errorf("edge provenance chunks %v docs %v, want both", e.ChunkIDs, e.DocIDs)
	}
	if fmt.Sprint(e.Values["distance_km"]) != "5921" || e.Values["unit"] != "km" {
		t.Errorf("edge values %v, want distance_km 5921 and unit km", e.Values)
	}
	if e.Description != r2.Description {
		t.Errorf("edge description %q, want the longer %q", e.Description, r2.Description)
	}
	if f.document(a.ID).Relations != 1 || f.document(b.ID).Relations != 1 {
		t.Errorf("each document should count the shared relation once")
	}
}

func testEntitiesOrder(t *testing.T, f *fixture) {
	d := f.doc("cities.txt", "cities")
	cs := f.chunks(d, "Munich, Delhi and Paris.")
	munich, delhi, paris := ent("Munich", "CITY", ""), ent("Delhi", "CITY", ""), ent("Paris", "CITY", "")
	f.extract(cs[0].ID, []graphrag.Entity{munich, delhi, paris})
	got, err := f.s.Entities(f.ctx, []string{paris.Key, "atlantis", munich.Key})
	if err != nil {
		t.Fatalf("Entities: %v", err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key)
	}
	if !slices.Equal(keys, []string{paris.Key, munich.Key}) {
		t.Errorf("Entities = %v, want [%s %s]", keys, paris.Key, munich.Key)
	}
	if none, err := f.s.Entities(f.ctx, []string{"atlantis"}); err != nil || len(none) != 0 {
		t.Errorf("Entities(unknown) = %v, %v; want none", none, err)
	}
}

func testSearchEntities(t *testing.T, f *fixture) {
	d := f.doc("aviation.txt", "aviation")
	cs := f.chunks(d, "Lufthansa hub Munich Airport (MUC) in München.")
	lh := ent("Deutsche Lufthansa AG", "ORGANIZATION", "airline", "LH", "Lufthansa")
	munich := ent("Munich", "CITY", "city", "München", "Muenchen")
	airport := ent("Munich Airport", "AIRPORT", "airport", "MUC", "Franz Josef Strauss Airport")
	f.extract(cs[0].ID, []graphrag.Entity{lh, munich, airport})
	tests := []struct {
		name, query, want string
	}{
		{"alias abbreviation", "LH", lh.Key},
		{"alias word", "lufthansa", lh.Key},
		{"alias with umlaut", "München", munich.Key},
		{"transliterated alias", "Muenchen", munich.Key},
		{"name word", "airport", airport.Key},
		{"alias code in a question", "flights from MUC?", airport.Key},
	}
	for _, tc := range tests {
		got, err := f.s.SearchEntities(f.ctx, tc.query, 3)
		if err != nil {
			t.Errorf("%s: SearchEntities(%q): %v", tc.name, tc.query, err)
			continue
		}
		if len(got) == 0 || got[0].Key != tc.want {
			var keys []string
			for _, e := range got {
				keys = append(keys, e.Key)
			}
			t.Errorf("%s: SearchEntities(%q) = %q, want %q first", tc.name, tc.query, keys, tc.want)
			continue
		}
		if !slices.Equal(got[0].ChunkIDs, []string{cs[0].ID}) {
			t.Errorf("%s: found entity has chunks %v, want [%s]", tc.name, got[0].ChunkIDs, cs[0].ID)
		}
	}
	for _, q := range []string{``, `"`, `(`, `AND OR`, `*`, `-x`, `name:LH`, `LH~`} {
		got, err := f.s.SearchEntities(f.ctx, q, 3)
		if err != nil || len(got) > 3 {
			t.Errorf("SearchEntities(%q) = %d entities, %v; want no error, at most 3", q, len(got), err)
		}
	}
}

// Each later description is longer than the kept one in one measure and shorter in the other: the store
// that keeps the longer by characters ends with the second, one that counted bytes with the third.
func testNonASCIIMerge(t *testing.T, f *fixture) {
	d := f.doc("münchen.txt", "München, Zürich")
	cs := f.chunks(d, "慕尼黑", "Munich, capital of Bavaria", "ミュンヘン")
	descriptions := []string{
		"慕尼黑是巴伐利亚州首府",                 // 11 characters, 33 bytes
		"capital of Bavaria, Germany", // 27 characters, 27 bytes: more characters, fewer bytes
		"ミュンヘンはドイツ南部の大都市です",           // 17 characters, 51 bytes: fewer characters, more bytes
	}
	names := []string{"München", "Munchen", "MÜNCHEN"}
	zurich := ent("Zürich", "CITY", "Stadt in der Schweiz")
	for i, c := range cs {
		munich := ent(names[i], "CITY", descriptions[i])
		r := rel(munich, "DISTANCE_TO", zurich, map[string]any{"distance_km": 242})
		r.Description = descriptions[i]
		f.extract(c.ID, []graphrag.Entity{munich, zurich}, r)
	}
	key := graphrag.NormalizeKey(names[0])
	e := f.entity(key)
	if e.Description != descriptions[1] {
		t.Errorf("entity description %q, want the one of most characters %q", e.Description, descriptions[1])
	}
	if e.Name != names[0] || !sameSet(e.Aliases, names) || len(e.Aliases) != 3 {
		t.Errorf("entity name %q aliases %q, want the first name and every spelling once", e.Name, e.Aliases)
	}
	if z := f.entity(zurich.Key); z.Name != "Zürich" || z.Description != zurich.Description || !slices.Equal(z.Aliases, []string{"Zürich"}) {
		t.Errorf("Zürich = %+v, want its name, description and one alias unchanged by three merges", z)
	}
	edges := f.neighborhood([]string{key}, 1, 10)
	if len(edges) != 1 {
		t.Fatalf("Neighborhood = %d edges, want 1", len(edges))
	}
	if edges[0].Description != descriptions[1] {
		t.Errorf("relation description %q, want the one of most characters %q", edges[0].Description, descriptions[1])
	}
	if len(edges[0].ChunkIDs) != 3 || edges[0].SourceName != names[0] || edges[0].TargetName != "Zürich" {
		t.Errorf("relation %+v, want three supporting chunks between München and Zürich", edges[0])
	}
}

func testUnresolvedExtraction(t *testing.T, f *fixture) {
	d := f.doc("raw.txt", "raw")
	cs := f.chunks(d, "Munich and Delhi")
	munich, delhi := ent("Munich", "CITY", ""), ent("Delhi", "CITY", "")
	noID := rel(munich, "NEAR", delhi, nil)
	noID.ID = ""
	tests := []struct {
		name string
		x    graphrag.Extraction
	}{
		{"entity without a key", graphrag.Extraction{ChunkID: cs[0].ID, Entities: []graphrag.Entity{{Name: "Munich"}}}},
		{"relation without an ID", graphrag.Extraction{ChunkID: cs[0].ID, Entities: []graphrag.Entity{munich, delhi}, Relations: []graphrag.Relation{noID}}},
	}
	for _, tc := range tests {
		if err := f.s.PutExtraction(f.ctx, tc.x); !errors.Is(err, graphrag.ErrUnresolved) {
			t.Errorf("%s: PutExtraction = %v, want graphrag.ErrUnresolved", tc.name, err)
		}
	}
	f.wantStats("after refused extractions", graphrag.Stats{Documents: 1, Chunks: 1})
}
