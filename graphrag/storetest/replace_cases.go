package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

var replaceCases = []testCase{
	{"ReplaceDocument leaves the new version as a fresh ingest would", testReplaceDocument},
	{"a reader during a replace sees the old version or the new, never a mix", testReplaceReaders},
	{"DocumentsNamed lists the documents of exactly one name, newest first", testDocumentsNamed},
}

func testDocumentsNamed(t *testing.T, f *fixture) {
	t0 := time.Now().UTC().Add(-time.Hour)
	older := f.docAt("a.txt", "first a", t0)
	newer := f.docAt("a.txt", "second a", t0.Add(time.Minute))
	upper := f.docAt("A.txt", "upper a", t0.Add(2*time.Minute))
	f.docAt("b.txt", "b", t0.Add(3*time.Minute))
	f.chunks(newer, "Munich is in Bavaria.")
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"a.txt", []string{newer.ID, older.ID}},
		{"A.txt", []string{upper.ID}},
		{"c.txt", nil},
	} {
		docs, err := f.s.DocumentsNamed(f.ctx, tc.name)
		got := make([]string, len(docs))
		for i, d := range docs {
			got[i] = d.ID
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("DocumentsNamed(%q) = %v, %v; want %v", tc.name, got, err, tc.want)
		}
		if len(docs) > 0 && docs[0].ID == newer.ID && docs[0].Chunks != 1 {
			t.Errorf("DocumentsNamed(%q): counts not read (%d chunks, want 1)", tc.name, docs[0].Chunks)
		}
	}
}

// staged stores a document that replaces old, with content as its bytes.
func (f *fixture) staged(old graphrag.Document, content string) graphrag.Document {
	f.t.Helper()
	hash := graphrag.ContentHash([]byte(content))
	now := time.Now().UTC()
	d := graphrag.Document{
		ID: graphrag.DocumentID(hash), Name: old.Name, Format: "txt", Hash: hash, Size: int64(len(content)),
		Status: graphrag.StatusQueued, CreatedAt: now, UpdatedAt: now, Replaces: old.ID,
	}
	stored, created, err := f.s.PutDocument(f.ctx, d, []byte(content))
	if err != nil || !created || stored.Replaces != old.ID {
		f.t.Fatalf("PutDocument(%s replacing %s) = %+v, created %v, %v", d.ID, old.ID, stored, created, err)
	}
	return stored
}

// testReplaceDocument: A (Munich-Delhi distance, Delhi in India) shares Munich and Delhi with B; A's new
// version keeps A's first passage (reused, not extracted again) and says Delhi lies on the Yamuna instead
// of being India's capital. While staged, nothing of the new version is found; after the replace, India
// and its relation are gone, the Yamuna is found, the shared entities cite the new version and B, and the
// counts equal those of the new version ingested afresh.
func testReplaceDocument(t *testing.T, f *fixture) {
	a, b := f.doc("a.txt", "version 1"), f.doc("b.txt", "document B")
	ca := f.chunks(a, "Munich to Delhi is 5,921 km.", "Delhi is the capital of India.")
	cb := f.chunks(b, "Lufthansa flies Munich to Delhi.")
	f.embed(map[string][]float32{ca[0].ID: axis(0), ca[1].ID: axis(1), cb[0].ID: axis(2)})
	munich, delhi, india := ent("Munich", "CITY", "city"), ent("Delhi", "CITY", "city"), ent("India", "COUNTRY", "country")
	yamuna, lh := ent("Yamuna", "RIVER", "river"), ent("Lufthansa", "ORGANIZATION", "airline")
	distance := rel(delhi, "DISTANCE_FROM", munich, map[string]any{"distance_km": 5921})
	inIndia, onYamuna := rel(delhi, "LOCATED_IN", india, nil), rel(delhi, "LIES_ON", yamuna, nil)
	hub := rel(lh, "FLIES_TO", delhi, nil)
	f.extract(ca[0].ID, []graphrag.Entity{munich, delhi}, distance)
	f.extract(ca[1].ID, []graphrag.Entity{delhi, india}, inIndia)
	f.extract(cb[0].ID, []graphrag.Entity{lh, munich, delhi}, hub)
	before := f.stats()

	a2 := f.staged(a, "version 2")
	n := f.chunks(a2, ca[0].Text, "Delhi lies on the Yamuna river.")
	if err := f.s.ReuseChunks(f.ctx, map[string]string{n[0].ID: ca[0].ID}); err != nil {
		t.Fatalf("ReuseChunks: %v", err)
	}
	f.embed(map[string][]float32{n[1].ID: axis(3)})
	f.extract(n[1].ID, []graphrag.Entity{delhi, yamuna}, onYamuna)
	chunks, err := f.s.DocumentChunks(f.ctx, a2.ID)
	if err != nil || len(chunks) != 2 || chunks[0].Status != graphrag.ChunkExtracted || chunks[1].Status != graphrag.ChunkExtracted {
		t.Fatalf("staged chunks = %+v, %v; want both extracted", chunks, err)
	}
	if d := f.document(a2.ID); d.ChunksEmbedded != 2 {
		t.Errorf("staged document has %d embedded chunks, want 2 (one vector reused)", d.ChunksEmbedded)
	}
	if got := f.searchText("Yamuna", 10); len(got) != 0 {
		t.Errorf("SearchText(Yamuna) while staged = %v, want nothing", ids(got))
	}
	if got := f.searchText("Munich Delhi", 10); slices.ContainsFunc(got, func(c graphrag.ScoredChunk) bool { return c.DocID == a2.ID }) {
		t.Errorf("SearchText while staged found the new version: %v", ids(got))
	}
	for _, v := range [][]float32{axis(0), axis(3)} {
		if got := f.searchVector(v, 10); slices.ContainsFunc(got, func(c graphrag.ScoredChunk) bool { return c.DocID == a2.ID }) {
			t.Errorf("SearchVector while staged found the new version: %v", ids(got))
		}
	}
	if got, err := f.s.SearchEntities(f.ctx, "Yamuna", 10); err != nil || len(got) != 0 {
		t.Errorf("SearchEntities(Yamuna) while staged = %v, %v; want nothing", got, err)
	}
	if st := f.stats(); st.Entities != before.Entities || st.Relations != before.Relations || st.Mentions != before.Mentions {
		t.Errorf("graph while staged %+v, before %+v: want it unchanged", st, before)
	}

	if err := f.s.ReplaceDocument(f.ctx, a2.ID); err != nil {
		t.Fatalf("ReplaceDocument: %v", err)
	}
	_, err = f.s.Document(f.ctx, a.ID)
	wantErr(t, "Document(old version)", err, graphrag.ErrNotFound)
	got := f.document(a2.ID)
	if got.Status != graphrag.StatusDone || got.Replaces != "" || got.Chunks != 2 || got.Entities != 3 || got.Relations != 2 {
		t.Errorf("new version = status %s replaces %q chunks %d entities %d relations %d; want done, none, 2 3 2",
			got.Status, got.Replaces, got.Chunks, got.Entities, got.Relations)
	}
	if found := f.searchText("Yamuna", 10); !slices.Equal(ids(found), []string{n[1].ID}) {
		t.Errorf("SearchText(Yamuna) after the replace = %v, want [%s]", ids(found), n[1].ID)
	}
	if found := f.searchText("capital India", 10); len(found) != 0 {
		t.Errorf("SearchText(capital India) after the replace = %v, want nothing", ids(found))
	}
	if found := f.searchVector(axis(0), 1); !slices.Equal(ids(found), []string{n[0].ID}) {
		t.Errorf("SearchVector(reused vector) = %v, want the new version's [%s]", ids(found), n[0].ID)
	}
	if es, err := f.s.Entities(f.ctx, []string{india.Key}); err != nil || len(es) != 0 {
		t.Errorf("Entities(India) = %v, %v; want it gone with the old version", es, err)
	}
	if e := f.entity(delhi.Key); !sameSet(e.ChunkIDs, []string{n[0].ID, n[1].ID, cb[0].ID}) || !sameSet(e.DocIDs, []string{a2.ID, b.ID}) {
		t.Errorf("Delhi provenance chunks %v docs %v, want the new version's and B's", e.ChunkIDs, e.DocIDs)
	}
	edges := f.neighborhood([]string{delhi.Key}, 1, 10)
	if !sameSet(edgeIDs(edges), []string{distance.ID, onYamuna.ID, hub.ID}) {
		t.Errorf("Neighborhood(Delhi) = %v, want distance, Yamuna and Lufthansa", edgeIDs(edges))
	}
	for _, e := range edges {
		if e.ID == distance.ID && (!slices.Equal(e.ChunkIDs, []string{n[0].ID}) || !slices.Equal(e.DocIDs, []string{a2.ID})) {
			t.Errorf("reused relation provenance chunks %v docs %v, want [%s] [%s]", e.ChunkIDs, e.DocIDs, n[0].ID, a2.ID)
		}
		if e.ID == distance.ID && fmt.Sprint(e.Values["distance_km"]) != "5921" {
			t.Errorf("reused relation values %v, want distance_km 5921", e.Values)
		}
	}
	replaced := f.stats()

	// The same new version ingested afresh, beside B, counts the same.
	if err := f.s.DeleteDocument(f.ctx, a2.ID); err != nil {
		t.Fatal(err)
	}
	fresh := f.doc("a.txt", "version 2")
	m := f.chunks(fresh, ca[0].Text, "Delhi lies on the Yamuna river.")
	f.embed(map[string][]float32{m[0].ID: axis(0), m[1].ID: axis(3)})
	f.extract(m[0].ID, []graphrag.Entity{munich, delhi}, distance)
	f.extract(m[1].ID, []graphrag.Entity{delhi, yamuna}, onYamuna)
	if st := f.stats(); st != replaced {
		t.Errorf("Stats after the replace %+v, after a fresh ingest of the new version %+v", replaced, st)
	}
	if err := f.s.ReplaceDocument(f.ctx, "dmissing"); err == nil {
		t.Errorf("ReplaceDocument of an unknown document: no error")
	}
}

// testReplaceReaders replaces a document of 6 passages by one of 6 other passages while readers search
// the words and the vector every passage shares: each answer holds 6 passages of one version.
func testReplaceReaders(t *testing.T, f *fixture) {
	const k = 6
	old := f.doc("fleet.txt", "fleet v1")
	texts := func(version string) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = fmt.Sprintf("Fleet report %s, aircraft %d of the zebra squadron.", version, i)
		}
		return out
	}
	vec := func(i int) []float32 { v := axis(0); v[1+i%(dim-1)] = 0.1; return v }
	embedAll := func(cs []graphrag.Chunk) {
		vectors := map[string][]float32{}
		for i, c := range cs {
			vectors[c.ID] = vec(i)
		}
		f.embed(vectors)
	}
	co := f.chunks(old, texts("one")...)
	embedAll(co)
	for _, c := range co {
		f.extract(c.ID, []graphrag.Entity{ent("Zebra squadron", "ORGANIZATION", "squadron")})
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	check := func(what string, found []graphrag.ScoredChunk, err error) bool {
		if err != nil {
			t.Errorf("%s during the replace: %v", what, err)
			return false
		}
		docs := map[string]int{}
		for _, c := range found {
			docs[c.DocID]++
		}
		if len(docs) != 1 || len(found) != k {
			t.Errorf("%s during the replace found %d passages of documents %v, want %d of one version", what, len(found), docs, k)
			return false
		}
		mu.Lock()
		for d := range docs {
			seen[d]++
		}
		mu.Unlock()
		return true
	}
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				found, err := f.s.SearchText(f.ctx, "zebra squadron", 2*k)
				if !check("SearchText", found, err) {
					return
				}
				found, err = f.s.SearchVector(f.ctx, axis(0), 2*k)
				if !check("SearchVector", found, err) {
					return
				}
			}
		}()
	}
	next := f.staged(old, "fleet v2")
	cn := f.chunks(next, texts("two")...)
	embedAll(cn)
	for _, c := range cn {
		f.extract(c.ID, []graphrag.Entity{ent("Zebra squadron", "ORGANIZATION", "squadron")})
	}
	if err := f.s.ReplaceDocument(f.ctx, next.ID); err != nil {
		t.Errorf("ReplaceDocument: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	if seen[old.ID] == 0 || seen[next.ID] == 0 {
		t.Errorf("readers saw the old version %d times and the new %d times; want both", seen[old.ID], seen[next.ID])
	}
}
