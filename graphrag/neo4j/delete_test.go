package neo4j

import (
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestDeleteDocumentLeavesNoOrphans checks what the contract cannot see: after two documents sharing an
// entity and a relation are deleted one by one, no Source, Chunk, Entity or edge of theirs is left, and
// the shared relation's provenance lists shrink in between. The Meta node and the store's record of its
// default workspace are the store's, not a document's.
func TestDeleteDocumentLeavesNoOrphans(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	ctx := t.Context()
	docA, chunksA := putDoc(t, s, "a.txt", "Munich to Delhi is 5921 km.", "Lufthansa flies there.")
	docB, chunksB := putDoc(t, s, "b.txt", "Delhi and Munich are 5921 km apart.")
	shared := relation("Munich", "DISTANCE_FROM", "Delhi")
	shared.Values = map[string]any{"distance_km": 5921}
	for _, c := range []graphrag.Chunk{chunksA[0], chunksB[0]} {
		x := graphrag.Extraction{ChunkID: c.ID, Entities: []graphrag.Entity{entity("Munich", "CITY"), entity("Delhi", "CITY")},
			Relations: []graphrag.Relation{shared}}
		if err := s.PutExtraction(ctx, x); err != nil {
			t.Fatal(err)
		}
	}
	x := graphrag.Extraction{ChunkID: chunksA[1].ID, Entities: []graphrag.Entity{entity("Lufthansa", "AIRLINE")},
		Relations: []graphrag.Relation{relation("Lufthansa", "FLIES_TO", "Delhi")}}
	if err := s.PutExtraction(ctx, x); err != nil {
		t.Fatal(err)
	}

	if err := s.DeleteDocument(ctx, docA.ID); err != nil {
		t.Fatal(err)
	}
	rec := cypher(t, uri, `MATCH ()-[r:RELATED]->() RETURN r.id, r.chunkIds, r.docIds`, nil)
	if len(rec) != 1 || asString(rec[0].Values[0]) != shared.ID {
		t.Fatalf("relations after deleting a.txt: %v, want only the shared one", rec)
	}
	if chunks, docs := asStrings(rec[0].Values[1]), asStrings(rec[0].Values[2]); len(chunks) != 1 || chunks[0] != chunksB[0].ID ||
		len(docs) != 1 || docs[0] != docB.ID {
		t.Errorf("shared relation supported by %v of %v, want [%s] of [%s]", chunks, docs, chunksB[0].ID, docB.ID)
	}
	if n := asInt(first(cypher(t, uri, `MATCH (src:Source {docId: $id}) RETURN count(src)`, map[string]any{"id": docA.ID}))); n != 0 {
		t.Errorf("%d Source nodes of a.txt left", n)
	}

	if err := s.DeleteDocument(ctx, docB.ID); err != nil {
		t.Fatal(err)
	}
	rec = cypher(t, uri, `MATCH (n) WHERE NOT n:Meta AND NOT n:Workspace RETURN labels(n)[0] AS label, count(*) AS n`, nil)
	for _, r := range rec {
		t.Errorf("%d %s nodes left after deleting every document", asInt(r.Values[1]), asString(r.Values[0]))
	}
	if n := asInt(first(cypher(t, uri, `MATCH ()-[r]->() RETURN count(r)`, nil))); n != 0 {
		t.Errorf("%d edges left after deleting every document", n)
	}
	// Deleting again is a no-op, as every write is idempotent.
	if err := s.DeleteDocument(ctx, docB.ID); err != nil {
		t.Errorf("deleting a deleted document: %v", err)
	}
}
