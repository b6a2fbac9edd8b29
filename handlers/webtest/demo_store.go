package webtest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
)

var demo struct {
	once sync.Once
	path string
	err  error
}

// copyDemo puts a copy of the demo store at path, ingesting the corpus the first time through the real
// ingester and the scripted model, as an upload would.
func copyDemo(t testing.TB, client *llm.Client, path string) {
	t.Helper()
	corpus := DemoCorpus(t)
	demo.once.Do(func() {
		dir, err := os.MkdirTemp("", "webtest-demo-")
		if err != nil {
			demo.err = err
			return
		}
		demo.path = filepath.Join(dir, "demo.db")
		demo.err = ingestDemo(client, corpus, demo.path)
	})
	if demo.err != nil {
		t.Fatalf("demo store: %v", demo.err)
	}
	b, err := os.ReadFile(demo.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func ingestDemo(client *llm.Client, corpus, path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := sqlite.Open(ctx, path, storeOptions, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	in := graphrag.NewIngester(store, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 2}, slog.New(slog.DiscardHandler))
	return graphragtest.IngestDir(ctx, in, store, corpus)
}
