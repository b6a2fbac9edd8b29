package evaltest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// Shared locates a directory of the shared material (corpus/demo, eval) beside the repository, searched
// from the working directory of a test; "" when absent.
func Shared(rel string) string {
	for _, base := range []string{"../../shared", "../../../shared", "../../../../shared", "/work/shared"} {
		if fi, err := os.Stat(filepath.Join(base, rel)); err == nil && fi.IsDir() {
			return filepath.Join(base, rel)
		}
	}
	return ""
}

// Client returns a model client for srv that never retries, as tests want.
func Client(srv *llmtest.Server) *llm.Client {
	return llm.New(llm.Config{
		BaseURL: srv.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 20 * time.Second, StreamIdleTimeout: 20 * time.Second, MaxConcurrency: 16,
	}, nil)
}

// IngestDir ingests the markdown files of dir with in (whose Run it starts and stops) and waits until store
// reports every one of them done.
func IngestDir(ctx context.Context, in *graphrag.Ingester, store graphrag.Store, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("evaltest: no documents in %s: %v", dir, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	defer func() { stop(); <-done }()
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
				return fmt.Errorf("evaltest: ingest %s: %s", d.Name, d.Error)
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
			return fmt.Errorf("evaltest: ingest: %d of %d documents done: %w", finished, len(files), ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
