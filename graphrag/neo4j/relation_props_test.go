package neo4j

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	neo4jdriver "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// checkRelationProps fails t unless every relation of every workspace keeps what the subgraph reads
// (relation_props.go): r.support equal to the number of its chunk IDs, and r.embeddingF32 (and the staged
// r.embeddingNextF32) the same vector as r.embedding (r.embeddingNext), or both missing.
func checkRelationProps(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background() // t.Context() is done in a cleanup
	res, err := neo4jdriver.ExecuteQuery(ctx, s.driver, `MATCH ()-[r]->() WHERE type(r) STARTS WITH 'RELATED'
		RETURN type(r), r.id, r.support, size(r.chunkIds), r.embedding, r.embeddingF32, r.embeddingNext, r.embeddingNextF32
		ORDER BY type(r), r.id`, nil, neo4jdriver.EagerResultTransformer, neo4jdriver.ExecuteQueryWithDatabase(s.opt.Database))
	if err != nil {
		t.Errorf("read the relations: %v", err)
		return
	}
	var wrong []string
	for _, rec := range res.Records {
		v := rec.Values
		name := asString(v[0]) + " " + asString(v[1])
		if v[2] == nil || asInt(v[2]) != asInt(v[3]) {
			wrong = append(wrong, fmt.Sprintf("%s: support %v, %d chunks", name, v[2], asInt(v[3])))
		}
		if !slices.Equal(float32s(v[4]), vectorOf(v[5])) {
			wrong = append(wrong, fmt.Sprintf("%s: float32 vector %d values, vector %d", name, len(vectorOf(v[5])), len(float32s(v[4]))))
		}
		if !slices.Equal(float32s(v[6]), vectorOf(v[7])) {
			wrong = append(wrong, fmt.Sprintf("%s: staged float32 vector %d values, staged vector %d", name,
				len(vectorOf(v[7])), len(float32s(v[6]))))
		}
	}
	if len(wrong) > 0 {
		t.Errorf("relations whose kept support or float32 vector differs from what they hold: %v", wrong[:min(len(wrong), 10)])
	}
}

// TestRelationPropsFollowWrites: supports and float32 vectors follow extractions that add support and a
// vector, the same extraction again, a second document and its deletion, and a re-embedding staged and
// committed; TestContract checks them after every contract case as well (replaces, merges, undo,
// re-extraction, edits, deletes).
func TestRelationPropsFollowWrites(t *testing.T) {
	s := openTest(t, 4)
	ctx := t.Context()
	rel := relation("Delhi", "DISTANCE_FROM", "Munich")
	want := func(step string, support int, vec []float32) {
		t.Helper()
		checkRelationProps(t, s)
		edges, err := s.Neighborhood(ctx, []string{rel.Source}, 1, 10)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if len(edges) != 1 || len(edges[0].ChunkIDs) != support {
			t.Fatalf("%s: edges %+v, want the relation supported %d times", step, edges, support)
		}
		sg, err := s.Subgraph(ctx, graphrag.SubgraphQuery{Keys: []string{rel.Source}, Vectors: [][]float32{vec},
			PerEntity: 4, MaxRelations: 10})
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := sg.Near[rel.ID]; got < 0.999 {
			t.Errorf("%s: the relation's similarity to its own vector is %v, want 1", step, got)
		}
	}
	put := func(chunkID string, vec []float32) {
		t.Helper()
		r := rel
		r.Embedding = vec
		x := graphrag.Extraction{ChunkID: chunkID, Entities: []graphrag.Entity{entity("Delhi", "city"), entity("Munich", "city")},
			Relations: []graphrag.Relation{r}}
		if err := s.PutExtraction(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	_, a := putDoc(t, s, "a.txt", "Delhi is far from Munich.", "Munich is far from Delhi.")
	first, second := []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0}
	put(a[0].ID, first)
	want("one chunk", 1, first)
	put(a[1].ID, second)
	want("a second chunk with a new vector", 2, second)
	put(a[1].ID, nil)
	want("the same extraction again, without a vector", 2, second)
	b, bc := putDoc(t, s, "b.txt", "Delhi and Munich.")
	put(bc[0].ID, nil)
	want("a second document", 3, second)
	if err := s.DeleteDocument(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	want("the second document deleted", 2, second)

	third := []float32{0, 0, 1, 0}
	if err := s.BeginReembed(ctx, graphrag.EmbeddingSpace{Dim: 4, Model: "next"}); err != nil {
		t.Fatal(err)
	}
	if err := s.StageEmbeddings(ctx, map[string][]float32{a[0].ID: third, a[1].ID: third}, map[string][]float32{rel.ID: third}); err != nil {
		t.Fatal(err)
	}
	checkRelationProps(t, s)
	if err := s.CommitReembed(ctx); err != nil {
		t.Fatal(err)
	}
	want("re-embedded", 2, third)
}

// A database written before relations kept their support counts and float32 vectors gets them at Open,
// once, a batch at a time; the subgraph a walk reads (the relations ranked by support, each with its
// similarity to the query) is the same before and after.
func TestOpenPreparesTheRelationsOfAnOlderDatabase(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	chunks, hub := hubDoc(t, s, 8), entity("Hub", "thing")
	for i, c := range chunks {
		// spoke j is named by the chunks j..7, so supports run from 8 down to 1
		x := graphrag.Extraction{ChunkID: c.ID, Entities: []graphrag.Entity{hub}}
		for j := 0; j <= i; j++ {
			spoke, rel := hubSpoke(j)
			rel.Embedding = []float32{1, float32(j), 0, 0.5}
			x.Entities, x.Relations = append(x.Entities, spoke), append(x.Relations, rel)
		}
		if err := s.PutExtraction(t.Context(), x); err != nil {
			t.Fatal(err)
		}
	}
	q := graphrag.SubgraphQuery{Keys: []string{hub.Key}, Vectors: [][]float32{{1, 2, 0, 0}}, PerEntity: 2, MaxRelations: 5}
	want, err := s.Subgraph(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Relations) != 5 || len(want.Relations[0].ChunkIDs) != 8 || len(want.Relations[4].ChunkIDs) != 4 ||
		want.Near[want.Relations[2].ID] < 0.9 {
		t.Fatalf("Subgraph = %+v; want the 5 best supported of 8 relations, 8 to 4 supports, spoke 2 near the query", want)
	}
	checkRelationProps(t, s)

	// Take the database back to what an older Hopwise wrote.
	cypher(t, uri, `MATCH ()-[r:RELATED]->() REMOVE r.support, r.embeddingF32`, nil)
	cypher(t, uri, `MATCH (m:Meta) REMOVE m.relationsPrepared`, nil)
	s.Close()

	batch := relationPropsBatch
	relationPropsBatch = 3
	t.Cleanup(func() { relationPropsBatch = batch })
	s = openOn(t, uri, 4, testModel)
	checkRelationProps(t, s)
	if r := cypher(t, uri, `MATCH (m:Meta) RETURN m.relationsPrepared`, nil); len(r) != 1 || r[0].Values[0] != true {
		t.Errorf("the Meta node does not record that the relations are prepared: %v", r)
	}
	if got, err := s.Subgraph(t.Context(), q); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Subgraph after Open prepared the relations = %+v, %v; want %+v as before", got, err, want)
	}
}
