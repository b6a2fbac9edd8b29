package neo4j

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// unkeyedMentions counts the mentions that do not carry their ends' keys (m.entity, m.chunk), and all.
func unkeyedMentions(t *testing.T, uri string) (unkeyed, all int) {
	t.Helper()
	r := cypher(t, uri, `MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity)
		RETURN count(CASE WHEN m.entity IS NULL OR m.entity <> e.key OR m.chunk IS NULL OR m.chunk <> c.id THEN 1 END), count(m)`, nil)
	return asInt(r[0].Values[0]), asInt(r[0].Values[1])
}

// hubDoc stores a document of n chunks, the i-th saying that the hub relates to spoke i, and returns them.
func hubDoc(t *testing.T, s *Store, n int) []graphrag.Chunk {
	t.Helper()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("The hub relates to spoke %d.", i)
	}
	_, chunks := putDoc(t, s, "hub.txt", texts...)
	return chunks
}

// hubSpoke is the entity Spoke i and the relation of the entity Hub to it.
func hubSpoke(i int) (graphrag.Entity, graphrag.Relation) {
	spoke := entity(fmt.Sprintf("Spoke %d", i), "thing")
	return spoke, relation("Hub", "RELATES_TO", spoke.Name)
}

// A database written before mentions carried their ends' keys gets them at Open, once; the subgraph a
// walk reads (a hub's first mentions by chunk ID, read from the (entity, chunk) index) is the same before
// and after, and read from the MENTIONS edges while some are not keyed.
func TestOpenKeysTheMentionsOfAnOlderDatabase(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	chunks, hub := hubDoc(t, s, 20), entity("Hub", "thing")
	for i, c := range chunks {
		spoke, rel := hubSpoke(i)
		rel.ChunkIDs = []string{c.ID}
		if err := s.PutExtraction(t.Context(), graphrag.Extraction{ChunkID: c.ID, Entities: []graphrag.Entity{hub, spoke},
			Relations: []graphrag.Relation{rel}}); err != nil {
			t.Fatal(err)
		}
	}
	q := graphrag.SubgraphQuery{Keys: []string{hub.Key}, ChunkIDs: []string{chunks[7].ID}, PerEntity: 3, MaxRelations: 50}
	want, err := s.Subgraph(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	if !slices.Equal(want.Mentions[hub.Key], ids[:3]) || want.Mentioned[hub.Key] != 20 || len(want.Relations) != 20 {
		t.Fatalf("Subgraph around the hub: mentions %v of %d, %d relations; want the first 3 chunk IDs %v of 20, 20 relations",
			want.Mentions[hub.Key], want.Mentioned[hub.Key], len(want.Relations), ids[:3])
	}
	if unkeyed, all := unkeyedMentions(t, uri); unkeyed != 0 || all != 40 {
		t.Fatalf("mentions written now: %d of %d without their ends' keys; want 0 of 40", unkeyed, all)
	}

	// Take the database back to what an older Hopwise wrote.
	cypher(t, uri, `MATCH ()-[m:MENTIONS]->() REMOVE m.entity, m.chunk`, nil)
	cypher(t, uri, `MATCH (m:Meta) REMOVE m.mentionsKeyed`, nil)
	if got, err := s.Subgraph(t.Context(), q); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Subgraph over mentions without keys = %+v, %v; want %+v", got, err, want)
	}
	s.Close()

	s = openOn(t, uri, 4, testModel)
	if unkeyed, all := unkeyedMentions(t, uri); unkeyed != 0 || all != 40 {
		t.Errorf("after Open: %d of %d mentions without their ends' keys; want 0 of 40", unkeyed, all)
	}
	if r := cypher(t, uri, `MATCH (m:Meta) RETURN m.mentionsKeyed`, nil); len(r) != 1 || r[0].Values[0] != true {
		t.Errorf("the Meta node does not record that the mentions are keyed: %v", r)
	}
	if got, err := s.Subgraph(t.Context(), q); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Subgraph after Open keyed the mentions = %+v, %v; want %+v as before", got, err, want)
	}
}
