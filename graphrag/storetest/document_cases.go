package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

var documentCases = []testCase{
	{"PutDocument creates then returns the existing document", testPutDocument},
	{"Documents lists newest first", testDocumentsOrder},
	{"SetDocumentStatus records steps with meta", testDocumentStatus},
	{"Document counts chunks, embeddings, extraction and graph", testDocumentCounts},
	{"unknown document is ErrNotFound", testDocumentNotFound},
	{"Ping, Kind and empty Stats", testPing},
}

func testPutDocument(t *testing.T, f *fixture) {
	src := []byte("Denied boarding compensation depends on flight distance.")
	hash := graphrag.ContentHash(src)
	doc := graphrag.Document{
		ID: graphrag.DocumentID(hash), Name: "eu261.txt", Format: "txt", Hash: hash, Size: int64(len(src)),
		Status: graphrag.StatusQueued, CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC(),
	}
	stored, created, err := f.s.PutDocument(f.ctx, doc, src)
	if err != nil || !created {
		t.Fatalf("first PutDocument = created %v, %v; want created", created, err)
	}
	if stored.ID != doc.ID || stored.Name != doc.Name || stored.Hash != hash || stored.Size != doc.Size ||
		stored.Status != graphrag.StatusQueued || stored.Chunks != 0 {
		t.Errorf("first PutDocument stored %+v, want the document as put", stored)
	}
	again := doc
	again.Name = "copy of eu261.txt"
	stored2, created, err := f.s.PutDocument(f.ctx, again, src)
	if err != nil || created {
		t.Fatalf("second PutDocument = created %v, %v; want existing", created, err)
	}
	if stored2.Name != doc.Name {
		t.Errorf("second PutDocument returned name %q, want the existing %q", stored2.Name, doc.Name)
	}
	if got := f.document(doc.ID); got.Name != doc.Name || got.Status != graphrag.StatusQueued {
		t.Errorf("Document after duplicate = %+v, want unchanged", got)
	}
	b, err := f.s.DocumentSource(f.ctx, doc.ID)
	if err != nil || !bytes.Equal(b, src) {
		t.Errorf("DocumentSource = %q, %v; want %q", b, err, src)
	}
	f.wantStats("after a duplicate upload", graphrag.Stats{Documents: 1})
}

func testDocumentsOrder(t *testing.T, f *fixture) {
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mid := f.docAt("mid.txt", "second document", base.Add(time.Hour))
	old := f.docAt("old.txt", "first document", base)
	newest := f.docAt("new.txt", "third document", base.Add(2*time.Hour))
	docs, err := f.s.Documents(f.ctx)
	if err != nil {
		t.Fatalf("Documents: %v", err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID)
	}
	want := []string{newest.ID, mid.ID, old.ID}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("Documents order = %v, want newest first %v", got, want)
	}
}

func testDocumentStatus(t *testing.T, f *fixture) {
	d := f.doc("policy.md", "# Travel policy")
	steps := []struct {
		name      string
		status    graphrag.DocStatus
		reason    string
		meta      graphrag.DocumentMeta
		wantTitle string
		wantFmt   string
		wantErr   string
	}{
		{"parsing sets title and format", graphrag.StatusParsing, "", graphrag.DocumentMeta{Title: "Travel policy", Format: "md"}, "Travel policy", "md", ""},
		{"embedding keeps them", graphrag.StatusEmbedding, "", graphrag.DocumentMeta{}, "Travel policy", "md", ""},
		{"failed records the reason", graphrag.StatusFailed, "parse: not a PDF", graphrag.DocumentMeta{}, "Travel policy", "md", "parse: not a PDF"},
		{"done clears the reason", graphrag.StatusDone, "", graphrag.DocumentMeta{Title: "Travel policy 2026"}, "Travel policy 2026", "md", ""},
	}
	for _, st := range steps {
		if err := f.s.SetDocumentStatus(f.ctx, d.ID, st.status, st.reason, st.meta); err != nil {
			t.Fatalf("%s: SetDocumentStatus: %v", st.name, err)
		}
		got := f.document(d.ID)
		if got.Status != st.status || got.Title != st.wantTitle || got.Format != st.wantFmt || got.Error != st.wantErr {
			t.Errorf("%s: got status %q title %q format %q error %q; want %q %q %q %q", st.name,
				got.Status, got.Title, got.Format, got.Error, st.status, st.wantTitle, st.wantFmt, st.wantErr)
		}
		if got.UpdatedAt.Before(got.CreatedAt) {
			t.Errorf("%s: UpdatedAt %v before CreatedAt %v", st.name, got.UpdatedAt, got.CreatedAt)
		}
	}
	err := f.s.SetDocumentStatus(f.ctx, "dmissing", graphrag.StatusDone, "", graphrag.DocumentMeta{})
	wantErr(t, "SetDocumentStatus of an unknown document", err, graphrag.ErrNotFound)
}

func testDocumentCounts(t *testing.T, f *fixture) {
	d := f.doc("counts.txt", "four chunks")
	cs := f.chunks(d, "Munich is in Germany.", "Delhi is in India.", "Nothing here.", "Not embedded yet.")
	f.embedAll(cs[:3])
	munich, germany := ent("Munich", "CITY", "city"), ent("Germany", "COUNTRY", "country")
	f.extract(cs[0].ID, []graphrag.Entity{munich, germany}, rel(munich, "LOCATED_IN", germany, nil))
	if err := f.s.MarkChunkFailed(f.ctx, cs[1].ID, "model returned invalid JSON twice"); err != nil {
		t.Fatalf("MarkChunkFailed: %v", err)
	}
	want := graphrag.Document{Chunks: 4, ChunksEmbedded: 3, ChunksExtracted: 2, FailedChunks: 1, Entities: 2, Relations: 1}
	got := f.document(d.ID)
	docs, err := f.s.Documents(f.ctx)
	if err != nil || len(docs) != 1 {
		t.Fatalf("Documents = %d, %v; want 1", len(docs), err)
	}
	for _, g := range []graphrag.Document{got, docs[0]} {
		if g.Chunks != want.Chunks || g.ChunksEmbedded != want.ChunksEmbedded || g.ChunksExtracted != want.ChunksExtracted ||
			g.FailedChunks != want.FailedChunks || g.Entities != want.Entities || g.Relations != want.Relations {
			t.Errorf("counts = chunks %d embedded %d extracted %d failed %d entities %d relations %d; want %d %d %d %d %d %d",
				g.Chunks, g.ChunksEmbedded, g.ChunksExtracted, g.FailedChunks, g.Entities, g.Relations,
				want.Chunks, want.ChunksEmbedded, want.ChunksExtracted, want.FailedChunks, want.Entities, want.Relations)
		}
	}
	chunks, err := f.s.DocumentChunks(f.ctx, d.ID)
	if err != nil || len(chunks) != 4 {
		t.Fatalf("DocumentChunks = %d, %v; want 4", len(chunks), err)
	}
	wantStatus := []graphrag.ChunkStatus{graphrag.ChunkExtracted, graphrag.ChunkFailed, graphrag.ChunkEmbedded, graphrag.ChunkPending}
	for i, c := range chunks {
		if c.Status != wantStatus[i] {
			t.Errorf("chunk %d status %q, want %q", i, c.Status, wantStatus[i])
		}
	}
	if chunks[1].Error != "model returned invalid JSON twice" {
		t.Errorf("failed chunk error %q, want the reason", chunks[1].Error)
	}
	f.wantStats("with one document", graphrag.Stats{Documents: 1, Chunks: 4, Embedded: 3, Entities: 2, Relations: 1, Mentions: 2})
}

func testDocumentNotFound(t *testing.T, f *fixture) {
	_, err := f.s.Document(f.ctx, "dmissing")
	wantErr(t, "Document", err, graphrag.ErrNotFound)
	_, err = f.s.DocumentSource(f.ctx, "dmissing")
	wantErr(t, "DocumentSource", err, graphrag.ErrNotFound)
	docs, err := f.s.Documents(f.ctx)
	if err != nil || len(docs) != 0 {
		t.Errorf("Documents of an empty store = %d, %v; want none", len(docs), err)
	}
}

func testPing(t *testing.T, f *fixture) {
	if err := f.s.Ping(f.ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if f.s.Kind() == "" {
		t.Error("Kind is empty")
	}
	f.wantStats("of an empty store", graphrag.Stats{})
}
