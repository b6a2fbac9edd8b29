package eval_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// shared locates a directory of the shared material beside the repository ("" when absent).
func shared(rel string) string {
	for _, base := range []string{"../../shared", "../../../shared", "/work/shared"} {
		if fi, err := os.Stat(filepath.Join(base, rel)); err == nil && fi.IsDir() {
			return filepath.Join(base, rel)
		}
	}
	return ""
}

// readerModel starts the scripted reader model (and extraction model) and returns a client for it.
func readerModel(t testing.TB) (*llmtest.Server, *llm.Client) {
	srv := llmtest.New(t)
	evaltest.Install(srv)
	return srv, llm.New(llm.Config{
		BaseURL: srv.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 20 * time.Second, StreamIdleTimeout: 20 * time.Second, MaxConcurrency: 16,
	}, nil)
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
	if err := ingestDir(ctx, in, store, dir); err != nil {
		t.Fatal(err)
	}
	return store
}

func ingestDir(ctx context.Context, in *graphrag.Ingester, store graphrag.Store, dir string) error {
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	defer func() { stop(); <-done }()
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no documents in %s: %v", dir, err)
	}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		_, _, err = in.Submit(ctx, f, fh)
		fh.Close()
		if err != nil {
			return err
		}
	}
	for {
		docs, err := store.Documents(ctx)
		if err != nil {
			return err
		}
		finished := 0
		for _, d := range docs {
			if d.Status == graphrag.StatusFailed {
				return fmt.Errorf("ingest %s: %s", d.Name, d.Error)
			}
			if d.Status == graphrag.StatusDone {
				finished++
			}
		}
		if finished == len(files) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("ingest: %d of %d documents done: %w", finished, len(files), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
