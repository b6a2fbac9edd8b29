package storetest

import (
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var retryCases = []testCase{
	{"RetryFailedChunks returns only the failed chunks to embedded", testRetryFailedChunks},
}

// testRetryFailedChunks fails one chunk of two documents each, leaves an extracted, an embedded and a
// pending chunk beside it, and retries one document: only its failed chunk changes, the other document's
// stays failed.
func testRetryFailedChunks(t *testing.T, f *fixture) {
	a, b := f.doc("a.txt", "document A"), f.doc("b.txt", "document B")
	ca := f.chunks(a, "Munich is in Germany.", "Delhi is in India.", "Nothing here.", "Not embedded yet.")
	cb := f.chunks(b, "Lufthansa flies to Delhi.")
	f.embedAll(ca[:3])
	f.embedAll(cb)
	munich, germany := ent("Munich", "CITY", "city"), ent("Germany", "COUNTRY", "country")
	f.extract(ca[0].ID, []graphrag.Entity{munich, germany}, rel(munich, "LOCATED_IN", germany, nil))
	for _, id := range []string{ca[1].ID, cb[0].ID} {
		if err := f.s.MarkChunkFailed(f.ctx, id, "model returned invalid JSON twice"); err != nil {
			t.Fatalf("MarkChunkFailed(%s): %v", id, err)
		}
	}

	n, err := f.s.RetryFailedChunks(f.ctx, a.ID)
	if err != nil || n != 1 {
		t.Fatalf("RetryFailedChunks(A) = %d, %v; want 1", n, err)
	}
	chunks, err := f.s.DocumentChunks(f.ctx, a.ID)
	if err != nil || len(chunks) != 4 {
		t.Fatalf("DocumentChunks(A) = %d, %v; want 4", len(chunks), err)
	}
	want := []graphrag.ChunkStatus{graphrag.ChunkExtracted, graphrag.ChunkEmbedded, graphrag.ChunkEmbedded, graphrag.ChunkPending}
	for i, c := range chunks {
		if c.Status != want[i] || c.Error != "" {
			t.Errorf("chunk %d of A: status %q error %q; want %q and no error", i, c.Status, c.Error, want[i])
		}
	}
	if d := f.document(a.ID); d.FailedChunks != 0 || d.ChunksExtracted != 1 || d.Entities != 2 {
		t.Errorf("A after retry: failed %d extracted %d entities %d; want 0 1 2", d.FailedChunks, d.ChunksExtracted, d.Entities)
	}
	if d := f.document(b.ID); d.FailedChunks != 1 {
		t.Errorf("B after retrying A: %d failed chunks, want 1", d.FailedChunks)
	}
	if n, err := f.s.RetryFailedChunks(f.ctx, a.ID); err != nil || n != 0 {
		t.Errorf("RetryFailedChunks(A) again = %d, %v; want 0", n, err)
	}
	if n, err := f.s.RetryFailedChunks(f.ctx, "dmissing"); err != nil || n != 0 {
		t.Errorf("RetryFailedChunks(unknown) = %d, %v; want 0 and no error", n, err)
	}
}
