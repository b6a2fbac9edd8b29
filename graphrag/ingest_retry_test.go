package graphrag_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// mentions reports whether a chat request is about text (the first answer or a repair of it).
func mentions(req llmtest.Request, text string) bool {
	return strings.Contains(req.LastUser(), text) || len(req.Messages) > 2 && strings.Contains(req.Messages[1].Content, text)
}

// retry retries a document and waits until its job has finished again.
func (e *testEnv) retry(id string) graphrag.Document {
	e.t.Helper()
	progress, stop := e.ingester.Subscribe()
	defer stop()
	if _, err := e.ingester.Retry(context.Background(), id); err != nil {
		e.t.Fatalf("Retry(%s): %v", id, err)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case p := <-progress:
			if p.DocID == id && p.Status.Finished() {
				doc, err := e.store.Document(context.Background(), id)
				if err != nil {
					e.t.Fatal(err)
				}
				return doc
			}
		case <-timeout:
			e.t.Fatalf("retry of %s did not finish", id)
		}
	}
}

// TestRetryExtractsOnlyTheFailedPassages, on SQLite and, with NEO4J_URI, on Neo4j.
func TestRetryExtractsOnlyTheFailedPassages(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) { testRetryExtractsOnlyTheFailed(t, open(t, 64, "test-embed")) })
	}
}

func testRetryExtractsOnlyTheFailed(t *testing.T, store graphrag.Store) {
	var broken atomic.Bool
	broken.Store(true)
	env := newEnvOn(t, store, graphrag.IngestOptions{Workers: 2}, func(req llmtest.Request) (llmtest.Reply, bool) {
		if broken.Load() && mentions(req, "Oktoberfest") {
			return llmtest.Reply{Content: "I cannot produce JSON for this."}, true
		}
		return llmtest.Reply{}, false
	})
	ctx := context.Background()
	p := env.ingest(demoFiles(t, "munich-travel-tips.md"))["munich-travel-tips.md"]
	before, err := env.store.Document(ctx, p.DocID)
	if err != nil || before.Status != graphrag.StatusDone || before.FailedChunks != 1 {
		t.Fatalf("before retry: %+v, %v; want done with one failed passage", before, err)
	}
	statsBefore := env.stats()
	sent := len(env.model.Requests())

	broken.Store(false)
	after := env.retry(p.DocID)
	if after.Status != graphrag.StatusDone || after.FailedChunks != 0 || after.ChunksExtracted != after.Chunks {
		t.Fatalf("after retry: status %s, %d failed, %d of %d extracted; want done, none failed", after.Status,
			after.FailedChunks, after.ChunksExtracted, after.Chunks)
	}
	if st := env.stats(); st.Entities <= statsBefore.Entities || st.Chunks != statsBefore.Chunks {
		t.Errorf("stats %+v after retry, %+v before: want more entities from the retried passage, the same chunks", st, statsBefore)
	}
	chunks, err := env.store.DocumentChunks(ctx, p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	passage := map[string]bool{}
	for _, c := range chunks {
		passage[c.Text] = true
	}
	var chats int
	for _, r := range env.model.Requests()[sent:] {
		switch {
		case r.IsEmbed():
			for _, in := range r.Input {
				if passage[in] {
					t.Errorf("retry embedded a passage again: %.80q", in)
				}
			}
		case !mentions(r, "Oktoberfest"):
			t.Errorf("retry sent a chat request about another passage: %.80q", r.LastUser())
		default:
			chats++
		}
	}
	if chats != 1 {
		t.Errorf("chat requests of the retry = %d, want 1 (the failed passage, extracted once)", chats)
	}

	_, err = env.ingester.Retry(ctx, p.DocID)
	if !errors.Is(err, graphrag.ErrNothingToRetry) {
		t.Errorf("Retry of a document with nothing failed = %v, want ErrNothingToRetry", err)
	}
	_, err = env.ingester.Retry(ctx, "dmissing")
	if !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("Retry of an unknown document = %v, want ErrNotFound", err)
	}
}

// TestRetryResumesAFailedDocument, on SQLite and, with NEO4J_URI, on Neo4j.
func TestRetryResumesAFailedDocument(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) { testRetryResumesAFailedDocument(t, open(t, 64, "test-embed")) })
	}
}

func testRetryResumesAFailedDocument(t *testing.T, store graphrag.Store) {
	var broken atomic.Bool
	broken.Store(true)
	env := newEnvOn(t, store, graphrag.IngestOptions{Workers: 2}, func(req llmtest.Request) (llmtest.Reply, bool) {
		if broken.Load() && req.IsEmbed() {
			return llmtest.Reply{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "model not loaded"}, true
		}
		return llmtest.Reply{}, false
	})
	p := env.ingest(demoFiles(t, "munich-travel-tips.md"))["munich-travel-tips.md"]
	if p.Status != graphrag.StatusFailed {
		t.Fatalf("first run %s, want failed (embeddings refused)", p.Status)
	}
	broken.Store(false)
	doc := env.retry(p.DocID)
	if doc.Status != graphrag.StatusDone || doc.Error != "" || doc.ChunksEmbedded != doc.Chunks || doc.Chunks == 0 || doc.Entities == 0 {
		t.Fatalf("after retry: %+v; want done with every passage embedded and entities found", doc)
	}
}

// TestRetryOfAFileThatFailedBeforeItsPassagesSaysUploadAgain: the embedded store drops the bytes of a
// document that failed, so a document that failed before any passage was stored cannot be read again from
// the store; Retry says to upload it again (not "read source: not found"), and uploading it again does
// retry it.
func TestRetryOfAFileThatFailedBeforeItsPassagesSaysUploadAgain(t *testing.T) {
	env := newEnv(t)
	broken := "%PDF-1.7\nnot really a PDF\n"
	p := env.ingest(map[string]string{"broken.pdf": broken})["broken.pdf"]
	if p.Status != graphrag.StatusFailed {
		t.Fatalf("broken.pdf: %s, want failed", p.Status)
	}
	_, err := env.ingester.Retry(context.Background(), p.DocID)
	if !errors.Is(err, graphrag.ErrUploadAgain) {
		t.Fatalf("Retry = %v, want ErrUploadAgain", err)
	}
	again := env.ingest(map[string]string{"broken.pdf": broken})["broken.pdf"]
	if again.DocID != p.DocID || again.Status != graphrag.StatusFailed {
		t.Errorf("the same file uploaded again: %+v, want document %s read again (and failing again)", again, p.DocID)
	}
}
