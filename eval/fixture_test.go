package eval_test

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
)

// sampleDocs holds the sample documents (package samples) in this repository.
const sampleDocs = "../samples/docs"

// sampleSet is the question set over the sample documents.
func sampleSet(t testing.TB) []eval.Question {
	t.Helper()
	set, err := eval.ReadSet(bytes.NewReader(samples.Questions()))
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// readerModel starts the scripted reader model (and extraction model) and returns a client for it.
func readerModel(t testing.TB) (*llmtest.Server, *llm.Client) {
	srv := llmtest.New(t)
	evaltest.Install(srv)
	return srv, evaltest.Client(srv)
}

// demoStore ingests the sample documents through the real pipeline (LLM extraction answered by graphragtest,
// llmtest's vectors) into a fresh SQLite store.
func demoStore(t testing.TB, client *llm.Client) *sqlite.Store {
	t.Helper()
	dir := sampleDocs
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "demo.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	in := graphrag.NewIngester(store, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 2}, slog.New(slog.DiscardHandler))
	if err := graphragtest.IngestDir(ctx, in, store, dir); err != nil {
		t.Fatal(err)
	}
	return store
}
