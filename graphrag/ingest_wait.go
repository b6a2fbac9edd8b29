package graphrag

import (
	"context"
	"fmt"
	"time"
)

// WaitDone reads the store every interval until every pending document (ID -> name) has finished its
// job; a document that failed is an error naming it, and so is the end of ctx. Reading the store, not the
// progress bus, means a dropped progress event can never leave it waiting.
func WaitDone(ctx context.Context, store Store, pending map[string]string, interval time.Duration) error {
	left := make(map[string]string, len(pending))
	for id, name := range pending {
		left[id] = name
	}
	for len(left) > 0 {
		docs, err := store.Documents(ctx)
		if err != nil {
			return fmt.Errorf("graphrag: ingest progress: %w", err)
		}
		for _, d := range docs {
			name, ok := left[d.ID]
			if !ok || !d.Status.Finished() {
				continue
			}
			if d.Status != StatusDone {
				return fmt.Errorf("graphrag: ingest %s: %s", name, d.Error)
			}
			delete(left, d.ID)
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("graphrag: ingest: %d of %d documents not done: %w", len(left), len(pending), ctx.Err())
		case <-time.After(interval):
		}
	}
	return nil
}
