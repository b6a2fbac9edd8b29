package eval_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func shared(rel string) string { return evaltest.Shared(rel) }

// readerModel starts the scripted reader model (and extraction model) and returns a client for it.
func readerModel(t testing.TB) (*llmtest.Server, *llm.Client) {
	srv := llmtest.New(t)
	evaltest.Install(srv)
	return srv, evaltest.Client(srv)
}

// demoStore ingests the demo corpus through the real pipeline (LLM extraction answered by graphragtest,
// llmtest's vectors) into a fresh SQLite store.
func demoStore(t testing.TB, client *llm.Client) *sqlite.Store {
	t.Helper()
	dir := shared("corpus/demo")
	if dir == "" {
		t.Skip("the demo corpus (shared/corpus/demo) is not beside this repository")
	}
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
