package graphrag_test

import (
	"sync/atomic"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestRetryOfAFailedDocumentRedoesOnlyWhatFailed: embeddings fail after the first batch of two passages,
// so the document fails with two passages embedded; its retry ends with the same passages, all embedded
// and extracted, and sends none of the two to the embedding model again. On SQLite and, with NEO4J_URI,
// on Neo4j.
func TestRetryOfAFailedDocumentRedoesOnlyWhatFailed(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) { testRetryOfAFailedDocument(t, open(t, 64, "test-embed")) })
	}
}

func testRetryOfAFailedDocument(t *testing.T, store graphrag.Store) {
	var embedCalls atomic.Int64
	var broken atomic.Bool
	broken.Store(true)
	env := newEnvOn(t, store, graphrag.IngestOptions{Workers: 1, EmbedBatch: 2}, func(req llmtest.Request) (llmtest.Reply, bool) {
		if req.IsEmbed() && embedCalls.Add(1) > 1 && broken.Load() {
			return llmtest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "model not loaded"}, true
		}
		return llmtest.Reply{}, false
	})
	p := env.ingest(demoFiles(t, "munich-travel-tips.md"))["munich-travel-tips.md"]
	failed, err := env.store.Document(t.Context(), p.DocID)
	if err != nil || failed.Status != graphrag.StatusFailed || failed.ChunksEmbedded != 2 || failed.Chunks < 4 {
		t.Fatalf("first run: %+v, %v; want failed with 2 of 4 or more passages embedded", failed, err)
	}
	chunks, err := env.store.DocumentChunks(t.Context(), p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	embedded := map[string]bool{}
	for _, c := range chunks {
		if c.Status != graphrag.ChunkPending {
			embedded[c.Text] = true
		}
	}
	sent := len(env.model.Requests())

	broken.Store(false)
	doc := env.retry(p.DocID)
	if doc.Status != graphrag.StatusDone || doc.ChunksEmbedded != doc.Chunks || doc.Chunks != failed.Chunks || doc.ChunksExtracted != doc.Chunks {
		t.Fatalf("after retry: %+v; want done with the same %d passages, all embedded and extracted", doc, failed.Chunks)
	}
	again, texts := 0, 0
	for _, r := range env.model.Requests()[sent:] {
		if !r.IsEmbed() {
			continue
		}
		for _, in := range r.Input {
			texts++
			if embedded[in] {
				again++
			}
		}
	}
	if again != 0 {
		t.Errorf("the retry embedded %d of the passages embedded before it again", again)
	}
	if texts < doc.Chunks-len(embedded) {
		t.Errorf("the retry embedded %d texts, fewer than the %d passages left", texts, doc.Chunks-len(embedded))
	}
	if chats := env.model.ChatCalls(); chats < doc.Chunks {
		t.Errorf("%d extraction calls in all, want one a passage (%d)", chats, doc.Chunks)
	}
}
