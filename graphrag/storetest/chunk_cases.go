package storetest

import (
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var chunkCases = []testCase{
	{"PutChunks again keeps existing chunks and their state", testPutChunksIdempotent},
	{"Chunks returns the asked IDs in order", testChunksByID},
	{"SetEmbeddings twice counts once", testSetEmbeddingsTwice},
	{"unknown chunk is ErrNotFound", testChunkNotFound},
	{"chunks keep the page they start on", testChunkPages},
}

func testPutChunksIdempotent(t *testing.T, f *fixture) {
	d := f.doc("guide.md", "guide")
	cs := f.chunks(d, "Guide. Intro: welcome.", "Guide. Meals: 40 EUR a day.", "Guide. Hotels: use the portal.")
	f.embed(map[string][]float32{cs[0].ID: axis(0)})
	f.extract(cs[1].ID, []graphrag.Entity{ent("Portal", "SYSTEM", "booking portal")})

	again := slices.Clone(cs)
	again[0].Text = "rewritten text that must not replace the stored one"
	again = append(again, graphrag.Chunk{ID: graphrag.ChunkID(d.ID, 3), DocID: d.ID, Ordinal: 3, Text: "Guide. Taxis."})
	if err := f.s.PutChunks(f.ctx, d.ID, again); err != nil {
		t.Fatalf("PutChunks again: %v", err)
	}
	got, err := f.s.DocumentChunks(f.ctx, d.ID)
	if err != nil {
		t.Fatalf("DocumentChunks: %v", err)
	}
	if len(got) != 4 {
		t.Fatalf("DocumentChunks = %d chunks, want 4", len(got))
	}
	wantStatus := []graphrag.ChunkStatus{graphrag.ChunkEmbedded, graphrag.ChunkExtracted, graphrag.ChunkPending, graphrag.ChunkPending}
	for i, c := range got {
		if c.Ordinal != i || c.ID != graphrag.ChunkID(d.ID, i) || c.DocID != d.ID {
			t.Errorf("chunk %d = id %s ordinal %d doc %s, want in order", i, c.ID, c.Ordinal, c.DocID)
		}
		if c.Status != wantStatus[i] {
			t.Errorf("chunk %d status %q, want %q", i, c.Status, wantStatus[i])
		}
		if c.Embedding != nil {
			t.Errorf("chunk %d carries its embedding; DocumentChunks omits them", i)
		}
	}
	if got[0].Text != cs[0].Text {
		t.Errorf("chunk 0 text %q, want the first stored %q", got[0].Text, cs[0].Text)
	}
	if !slices.Equal(got[1].Section, cs[1].Section) || got[1].Tokens != cs[1].Tokens {
		t.Errorf("chunk 1 section %q tokens %d, want %q %d", got[1].Section, got[1].Tokens, cs[1].Section, cs[1].Tokens)
	}
	f.wantStats("after PutChunks twice", graphrag.Stats{Documents: 1, Chunks: 4, Embedded: 1, Entities: 1, Mentions: 1})
}

func testChunksByID(t *testing.T, f *fixture) {
	d := f.doc("order.txt", "order")
	cs := f.chunks(d, "first", "second", "third")
	f.embedAll(cs)
	got, err := f.s.Chunks(f.ctx, []string{cs[2].ID, "dmissing-0001", cs[0].ID})
	if err != nil {
		t.Fatalf("Chunks: %v", err)
	}
	if gotIDs := chunkIDs(got); !slices.Equal(gotIDs, []string{cs[2].ID, cs[0].ID}) {
		t.Fatalf("Chunks = %v, want [%s %s]", gotIDs, cs[2].ID, cs[0].ID)
	}
	for _, c := range got {
		if c.Embedding != nil {
			t.Errorf("chunk %s carries its embedding; Chunks omits them", c.ID)
		}
		if c.DocName != d.Name || c.Status != graphrag.ChunkEmbedded {
			t.Errorf("chunk %s doc name %q status %q, want %q embedded", c.ID, c.DocName, c.Status, d.Name)
		}
	}
	if got[0].Text != "third" || !slices.Equal(got[0].Section, cs[2].Section) {
		t.Errorf("chunk %s = text %q section %q, want %q %q", got[0].ID, got[0].Text, got[0].Section, "third", cs[2].Section)
	}
	none, err := f.s.Chunks(f.ctx, nil)
	if err != nil || len(none) != 0 {
		t.Errorf("Chunks(nil) = %d, %v; want none", len(none), err)
	}
}

func testSetEmbeddingsTwice(t *testing.T, f *fixture) {
	d := f.doc("vec.txt", "vectors")
	cs := f.chunks(d, "one", "two")
	vectors := map[string][]float32{cs[0].ID: axis(0), cs[1].ID: axis(1)}
	f.embed(vectors)
	f.embed(vectors)
	f.wantStats("after SetEmbeddings twice", graphrag.Stats{Documents: 1, Chunks: 2, Embedded: 2})
	if got := f.searchVector(axis(1), 5); len(got) != 2 || got[0].ID != cs[1].ID {
		t.Errorf("SearchVector after SetEmbeddings twice = %v, want 2 results led by %s", ids(got), cs[1].ID)
	}
}

func testChunkNotFound(t *testing.T, f *fixture) {
	err := f.s.MarkChunkFailed(f.ctx, "dmissing-0000", "reason")
	wantErr(t, "MarkChunkFailed", err, graphrag.ErrNotFound)
	err = f.s.PutExtraction(f.ctx, graphrag.Extraction{ChunkID: "dmissing-0000", Entities: []graphrag.Entity{ent("Munich", "CITY", "")}})
	wantErr(t, "PutExtraction", err, graphrag.ErrNotFound)
	f.wantStats("after refused writes", graphrag.Stats{})
}

func chunkIDs(cs []graphrag.Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// testChunkPages: the page a chunk starts on comes back from every read, 0 (no page) included.
func testChunkPages(t *testing.T, f *fixture) {
	doc := f.doc("deck.pptx", "deck")
	cs := []graphrag.Chunk{
		{ID: graphrag.ChunkID(doc.ID, 0), DocID: doc.ID, Ordinal: 0, Section: []string{}, Text: "cover without a page number", Page: 0},
		{ID: graphrag.ChunkID(doc.ID, 1), DocID: doc.ID, Ordinal: 1, Section: []string{"Slide 3"}, Text: "compensation on slide three", Page: 3},
		{ID: graphrag.ChunkID(doc.ID, 2), DocID: doc.ID, Ordinal: 2, Section: []string{"Slide 12"}, Text: "distances on slide twelve", Page: 12},
	}
	if err := f.s.PutChunks(f.ctx, doc.ID, cs); err != nil {
		t.Fatal(err)
	}
	f.embedAll(cs)
	want := map[string]int{cs[0].ID: 0, cs[1].ID: 3, cs[2].ID: 12}
	check := func(what string, got []graphrag.Chunk) {
		t.Helper()
		if len(got) == 0 {
			t.Errorf("%s: no chunks", what)
		}
		for _, c := range got {
			if c.Page != want[c.ID] {
				t.Errorf("%s: chunk %s on page %d, want %d", what, c.ID, c.Page, want[c.ID])
			}
		}
	}
	all, err := f.s.DocumentChunks(f.ctx, doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("DocumentChunks", all)
	byID, err := f.s.Chunks(f.ctx, chunkIDs(cs))
	if err != nil {
		t.Fatal(err)
	}
	check("Chunks", byID)
	for _, q := range []string{"compensation slide", "distances twelve"} {
		var found []graphrag.Chunk
		for _, h := range f.searchText(q, 3) {
			found = append(found, h.Chunk)
		}
		check("SearchText "+q, found)
	}
	var near []graphrag.Chunk
	for _, h := range f.searchVector(axis(1), 3) {
		near = append(near, h.Chunk)
	}
	check("SearchVector", near)
}
