package storetest

import (
	"math"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var subgraphCases = []testCase{
	{"reads what a walk from entities and chunks reaches", testSubgraph},
	{"keeps relation vectors and refuses other dimensions", testRelationVectors},
}

// testSubgraph checks, on the graph fixture, that a start entity brings the relations touching it and the
// mentions of every entity met, that a start chunk brings the entities it mentions and their relations,
// that perEntity and maxRelations bound the result, and that unknown starts are skipped.
func testSubgraph(t *testing.T, f *fixture) {
	g := buildGraph(f)
	munich := g.ents["Munich"].Key
	sg, err := f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{Keys: []string{munich, "no such entity"}, PerEntity: 10, MaxRelations: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range sg.Relations {
		got = append(got, r.ID)
		if r.SourceName == "" || r.TargetName == "" || len(r.ChunkIDs) != 1 {
			t.Errorf("relation %s without names or provenance: %+v", r.ID, r)
		}
	}
	if want := g.relIDs("delhi-munich", "lh-munich", "munich-germany"); !sameSet(got, want) {
		t.Errorf("relations around Munich = %v, want %v", got, want)
	}
	// Munich is mentioned by its three relations' chunks; Delhi, reached by a relation, by two.
	if n := sg.Mentioned[munich]; n != 3 || len(sg.Mentions[munich]) != 3 {
		t.Errorf("Munich mentioned %d times, %d chunks listed; want 3 and 3", n, len(sg.Mentions[munich]))
	}
	if delhi := g.ents["Delhi"].Key; sg.Mentioned[delhi] != 2 {
		t.Errorf("Delhi, reached by a relation, mentioned %d times, want 2", sg.Mentioned[delhi])
	}
	if !slices.IsSorted(sg.Mentions[munich]) {
		t.Errorf("mentions %v not in chunk order", sg.Mentions[munich])
	}
	if len(sg.ChunkEntities) != 0 {
		t.Errorf("chunk entities %v without start chunks", sg.ChunkEntities)
	}

	// A start chunk: the Tokyo-Osaka chunk brings both ends and their one relation.
	tokyoChunk := g.chunks[6].ID
	sg, err = f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{ChunkIDs: []string{tokyoChunk, "no such chunk"}, PerEntity: 10, MaxRelations: 100})
	if err != nil {
		t.Fatal(err)
	}
	if ks := sg.ChunkEntities[tokyoChunk]; !sameSet(ks, []string{g.ents["Tokyo"].Key, g.ents["Osaka"].Key}) {
		t.Errorf("entities of the Tokyo chunk = %v", ks)
	}
	if len(sg.Relations) != 1 || sg.Relations[0].ID != g.rels["tokyo-osaka"].ID {
		t.Errorf("relations of the Tokyo chunk = %v", sg.Relations)
	}

	// Bounds: one chunk per entity, but the counts stay whole; two relations at most.
	sg, err = f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{Keys: []string{munich}, PerEntity: 1, MaxRelations: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(sg.Relations) != 2 {
		t.Errorf("%d relations, want the bound 2", len(sg.Relations))
	}
	if len(sg.Mentions[munich]) != 1 || sg.Mentioned[munich] != 3 {
		t.Errorf("Munich: %d chunks listed of %d, want 1 of 3", len(sg.Mentions[munich]), sg.Mentioned[munich])
	}
	sg, err = f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{PerEntity: 10, MaxRelations: 100})
	if err != nil || len(sg.Relations) != 0 || len(sg.Mentions) != 0 {
		t.Errorf("Subgraph of nothing = %+v, %v; want empty", sg, err)
	}
}

// testRelationVectors checks that a relation's vector is stored with its extraction, compared by Subgraph
// with the query vectors, kept when the relation is extracted again without one, and refused in another
// dimension.
func testRelationVectors(t *testing.T, f *fixture) {
	doc := f.doc("vectors.txt", "vectors")
	cs := f.chunks(doc, "Delhi is far from Munich", "Munich is far from Delhi")
	delhi, munich := ent("Delhi", "CITY", ""), ent("Munich", "CITY", "")
	r := rel(delhi, "DISTANCE_FROM", munich, nil)
	withVec := r
	withVec.Embedding = axis(3)
	f.extract(cs[0].ID, []graphrag.Entity{delhi, munich}, withVec)
	f.extract(cs[1].ID, []graphrag.Entity{delhi, munich}, r) // no vector this time
	// Nearness to the query vectors: the best of them counts; a vector pointing away counts as 0.
	minus := axis(3)
	minus[3] = -1
	for _, tc := range []struct {
		vecs [][]float32
		want float64
	}{{[][]float32{axis(3)}, 1}, {[][]float32{axis(2), axis(3)}, 1}, {[][]float32{axis(2)}, 0}, {[][]float32{minus}, 0}, {nil, 0}} {
		sg, err := f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{Keys: []string{delhi.Key}, Vectors: tc.vecs, PerEntity: 10, MaxRelations: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(sg.Relations) != 1 || math.Abs(sg.Near[r.ID]-tc.want) > 1e-5 {
			t.Errorf("relations %+v, near %v: want the one relation at %v for %v", sg.Relations, sg.Near, tc.want, tc.vecs)
		}
	}
	// A relation extracted without a vector is near nothing.
	lisbon := ent("Lisbon", "CITY", "")
	plain := rel(delhi, "FLIGHT_TO", lisbon, nil)
	f.extract(cs[0].ID, []graphrag.Entity{delhi, lisbon}, plain)
	sg, err := f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{Keys: []string{lisbon.Key}, Vectors: [][]float32{axis(3)}, PerEntity: 10, MaxRelations: 10})
	if err != nil || len(sg.Relations) != 1 || sg.Near[plain.ID] != 0 {
		t.Errorf("a relation without vector: %+v near %v, %v", sg.Relations, sg.Near, err)
	}
	bad := r
	bad.Embedding = []float32{1, 2}
	err = f.s.PutExtraction(f.ctx, graphrag.Extraction{ChunkID: cs[1].ID, Entities: []graphrag.Entity{delhi, munich}, Relations: []graphrag.Relation{bad}})
	wantErr(t, "a relation vector of dimension 2", err, graphrag.ErrDimension)
}
