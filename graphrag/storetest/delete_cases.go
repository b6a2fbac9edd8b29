package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var deleteCases = []testCase{
	{"cascades exactly when documents share entities and relations", testDeleteCascade},
}

// testDeleteCascade builds documents A and B:
//
//	A chunk 0 "Munich ... Delhi ... Himalaya": Munich, Delhi; Delhi -DISTANCE_FROM-> Munich (shared with B),
//	  Munich -FLIGHT_TO-> Delhi (only A, between entities B keeps)
//	A chunk 1: Delhi, India; Delhi -LOCATED_IN-> India (only A)
//	B chunk 0: Munich, Delhi, Lufthansa; Delhi -DISTANCE_FROM-> Munich; Lufthansa -HUB_AT-> Munich (only B)
//
// and deletes A: India, Delhi -LOCATED_IN-> India and Munich -FLIGHT_TO-> Delhi go; Munich, Delhi and the
// distance keep only B's provenance.
func testDeleteCascade(t *testing.T, f *fixture) {
	a, b := f.doc("a.txt", "document A"), f.doc("b.txt", "document B")
	ca := f.chunks(a, "Munich to Delhi is 5,921 km, past the Himalaya.", "Delhi is the capital of India.")
	cb := f.chunks(b, "Lufthansa flies Munich to Delhi, 5,921 km.")
	vecA0 := axis(0)
	vecA1 := axis(1)
	vecB0 := axis(0)
	vecB0[2] = 0.5
	f.embed(map[string][]float32{ca[0].ID: vecA0, ca[1].ID: vecA1, cb[0].ID: vecB0})
	munich, delhi := ent("Munich", "CITY", "city"), ent("Delhi", "CITY", "city")
	india, lh := ent("India", "COUNTRY", "country"), ent("Lufthansa", "ORGANIZATION", "airline")
	distance := rel(delhi, "DISTANCE_FROM", munich, map[string]any{"distance_km": 5921})
	inIndia := rel(delhi, "LOCATED_IN", india, nil)
	hub := rel(lh, "HUB_AT", munich, nil)
	flight := rel(munich, "FLIGHT_TO", delhi, nil)
	f.extract(ca[0].ID, []graphrag.Entity{munich, delhi}, distance, flight)
	f.extract(ca[1].ID, []graphrag.Entity{delhi, india}, inIndia)
	f.extract(cb[0].ID, []graphrag.Entity{munich, delhi, lh}, distance, hub)
	f.wantStats("before delete", graphrag.Stats{Documents: 2, Chunks: 3, Embedded: 3, Entities: 4, Relations: 4, Mentions: 7})

	if err := f.s.DeleteDocument(f.ctx, a.ID); err != nil {
		t.Fatalf("DeleteDocument(A): %v", err)
	}
	f.wantStats("after deleting A", graphrag.Stats{Documents: 1, Chunks: 1, Embedded: 1, Entities: 3, Relations: 2, Mentions: 3})

	_, err := f.s.Document(f.ctx, a.ID)
	wantErr(t, "Document(A)", err, graphrag.ErrNotFound)
	_, err = f.s.DocumentSource(f.ctx, a.ID)
	wantErr(t, "DocumentSource(A)", err, graphrag.ErrNotFound)
	if got, err := f.s.DocumentChunks(f.ctx, a.ID); err != nil || len(got) != 0 {
		t.Errorf("DocumentChunks(A) = %d, %v; want none", len(got), err)
	}
	if got, err := f.s.Chunks(f.ctx, []string{ca[0].ID, ca[1].ID}); err != nil || len(got) != 0 {
		t.Errorf("Chunks(A's) = %d, %v; want none", len(got), err)
	}
	bDoc := f.document(b.ID)
	if bDoc.Chunks != 1 || bDoc.Entities != 3 || bDoc.Relations != 2 {
		t.Errorf("document B counts chunks %d entities %d relations %d, want 1 3 2", bDoc.Chunks, bDoc.Entities, bDoc.Relations)
	}

	isA := func(chunkID string) bool { return chunkID == ca[0].ID || chunkID == ca[1].ID }
	for _, q := range []string{"Himalaya", "capital of India", "Munich Delhi"} {
		for _, r := range f.searchText(q, 10) {
			if isA(r.ID) || r.DocID == a.ID {
				t.Errorf("SearchText(%q) found %s of the deleted document", q, r.ID)
			}
		}
	}
	if got := f.searchText("Munich", 10); !slices.Equal(ids(got), []string{cb[0].ID}) {
		t.Errorf("SearchText(Munich) = %v, want only B's chunk", ids(got))
	}
	for _, v := range [][]float32{vecA0, vecA1} {
		for _, r := range f.searchVector(v, 10) {
			if isA(r.ID) || r.DocID == a.ID {
				t.Errorf("SearchVector found %s of the deleted document", r.ID)
			}
		}
	}
	if got := f.searchVector(vecA0, 10); !slices.Equal(ids(got), []string{cb[0].ID}) {
		t.Errorf("SearchVector = %v, want only B's chunk", ids(got))
	}

	if got, err := f.s.SearchEntities(f.ctx, "India", 10); err != nil || len(got) != 0 {
		t.Errorf("SearchEntities(India) = %v, %v; want nothing: only A mentioned it", got, err)
	}
	if got, err := f.s.Entities(f.ctx, []string{india.Key}); err != nil || len(got) != 0 {
		t.Errorf("Entities(india) = %v, %v; want nothing", got, err)
	}
	for _, key := range []string{munich.Key, delhi.Key} {
		e := f.entity(key)
		if !slices.Equal(e.ChunkIDs, []string{cb[0].ID}) || !slices.Equal(e.DocIDs, []string{b.ID}) {
			t.Errorf("entity %s provenance chunks %v docs %v, want only B's", key, e.ChunkIDs, e.DocIDs)
		}
	}
	found, err := f.s.SearchEntities(f.ctx, "Delhi", 10)
	if err != nil || len(found) != 1 || !slices.Equal(found[0].DocIDs, []string{b.ID}) {
		t.Errorf("SearchEntities(Delhi) = %+v, %v; want Delhi with only B's provenance", found, err)
	}

	edges := f.neighborhood([]string{delhi.Key, munich.Key}, 2, 10)
	if !sameSet(edgeIDs(edges), []string{distance.ID, hub.ID}) || len(edges) != 2 {
		t.Errorf("Neighborhood after delete = %v, want [%s %s]", edgeIDs(edges), distance.ID, hub.ID)
	}
	for _, e := range edges {
		if slices.ContainsFunc(e.ChunkIDs, isA) || slices.Contains(e.DocIDs, a.ID) {
			t.Errorf("edge %s still cites A: chunks %v docs %v", e.ID, e.ChunkIDs, e.DocIDs)
		}
		if e.ID == distance.ID && (!slices.Equal(e.ChunkIDs, []string{cb[0].ID}) || !slices.Equal(e.DocIDs, []string{b.ID})) {
			t.Errorf("shared relation provenance chunks %v docs %v, want only B's", e.ChunkIDs, e.DocIDs)
		}
	}

	if err := f.s.DeleteDocument(f.ctx, a.ID); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("DeleteDocument(A) again: %v; want nil or ErrNotFound", err)
	}
	if err := f.s.DeleteDocument(f.ctx, b.ID); err != nil {
		t.Fatalf("DeleteDocument(B): %v", err)
	}
	f.wantStats("after deleting both", graphrag.Stats{})
	if got := f.searchVector(vecB0, 10); len(got) != 0 {
		t.Errorf("SearchVector on an empty store = %v", ids(got))
	}
}
