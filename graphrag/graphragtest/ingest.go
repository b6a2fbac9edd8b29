package graphragtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// IngestDir ingests the markdown files of dir with in (whose Run it starts and stops) and waits until store
// reports every one of them done; a failed document or the end of ctx is an error.
func IngestDir(ctx context.Context, in *graphrag.Ingester, store graphrag.Store, dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("graphragtest: no documents in %s: %v", dir, err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	defer func() { stop(); <-done }()
	pending := map[string]string{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		doc, _, err := in.Submit(ctx, f, fh)
		fh.Close()
		if err != nil {
			return err
		}
		pending[doc.ID] = f
	}
	return graphrag.WaitDone(ctx, store, pending, 20*time.Millisecond)
}
