package graphrag_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestQueuedJobsWakeEveryWorker: jobs queued before the workers start (a restart's resumed jobs, uploads
// while the ingester starts) are all taken, by every worker at once: with three workers held on the model,
// three documents are in flight together; released, all six end done.
func TestQueuedJobsWakeEveryWorker(t *testing.T) {
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	env := newIdleEnv(t, graphrag.IngestOptions{Workers: 3}, func(req llmtest.Request) (llmtest.Reply, bool) {
		if req.IsEmbed() {
			<-gate
		}
		return llmtest.Reply{}, false
	})
	ctx := context.Background()
	const n = 6
	for i := range n {
		text := fmt.Sprintf("Note %d: Lena Vogt met Arjun Mehta in Munich.", i)
		if _, _, err := env.ingester.Submit(ctx, fmt.Sprintf("note-%d.txt", i), strings.NewReader(text)); err != nil {
			t.Fatal(err)
		}
	}
	env.run()
	t.Cleanup(release)
	deadline := time.Now().Add(10 * time.Second)
	for env.model.MaxInFlight() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := env.model.MaxInFlight(); got != 3 {
		t.Fatalf("%d model calls in flight at most, want 3 (one per worker)", got)
	}
	release()
	for {
		docs, err := env.store.Documents(ctx)
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, d := range docs {
			if d.Status == graphrag.StatusDone {
				done++
			}
		}
		if done == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d documents done before the deadline", done, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
