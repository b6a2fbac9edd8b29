package neo4j

import (
	"fmt"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
)

// TestEntityBriefsMatchFullReads: what entity resolution reads of Neo4j's entities (names, kinds,
// descriptions, aliases, whether a document mentions them, neighbours' names) is what its full reads give:
// three documents, a hub named in every passage, relations supported by several passages.
func TestEntityBriefsMatchFullReads(t *testing.T) {
	s := openTest(t, 8)
	people := []string{"Lena Vogt", "Arjun Mehta", "Priya Raman", "Tomas Silva"}
	for d := range 3 {
		_, chunks := putDoc(t, s, fmt.Sprintf("report-%d.md", d), "first passage", "second passage")
		for i, c := range chunks {
			who := people[(d+i)%len(people)]
			x := graphrag.Extraction{ChunkID: c.ID,
				Entities:  []graphrag.Entity{entity("Munich", "city"), entity(who, "person")},
				Relations: []graphrag.Relation{relation(who, "LIVES_IN", "Munich")}}
			if d == 0 {
				x.Entities = append(x.Entities, entity("Nexa AI", "organization"))
				x.Relations = append(x.Relations, relation(who, "WORKS_FOR", "Nexa AI"))
			}
			if err := s.PutExtraction(t.Context(), x); err != nil {
				t.Fatal(err)
			}
		}
	}
	n, err := graphragtest.CheckBriefs(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2+len(people) {
		t.Fatalf("%d entities compared, want %d", n, 2+len(people))
	}
}
