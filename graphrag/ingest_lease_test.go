package graphrag_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// A job another process holds is left to it; once its lease runs out (that process died), this one takes
// the job over and finishes it.
func TestIngestTakesOverAJobWhoseLeaseRanOut(t *testing.T) {
	e := newIdleEnv(t, graphrag.IngestOptions{Workers: 2, Lease: 3 * time.Second})
	ctx := context.Background()
	files := demoFiles(t, "munich-city-distances.md")
	doc, _, err := e.ingester.Submit(ctx, "munich-city-distances.md", strings.NewReader(files["munich-city-distances.md"]))
	if err != nil {
		t.Fatal(err)
	}
	const dead = 2 * time.Second
	if _, ok, err := e.store.TakeLease(ctx, graphrag.JobLease(doc.ID), "a process on another machine", dead); err != nil || !ok {
		t.Fatalf("take the job's lease: %v %v", ok, err)
	}
	began := time.Now()
	e.run()
	time.Sleep(dead - 500*time.Millisecond)
	if d, err := e.store.Document(ctx, doc.ID); err != nil || d.Status != graphrag.StatusQueued {
		t.Fatalf("while the other process holds it: %s %v, want it left queued", d.Status, err)
	}
	for {
		d, err := e.store.Document(ctx, doc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.Status == graphrag.StatusDone {
			if took := time.Since(began); took < dead {
				t.Errorf("done after %s, before the other process's lease ran out", took)
			}
			break
		}
		if time.Since(began) > 60*time.Second {
			t.Fatalf("not taken over and finished after 60 s: %s", d.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if l, err := e.store.Lease(ctx, graphrag.JobLease(doc.ID)); err != nil || l.Held {
		t.Errorf("the job's lease after it ended: %+v %v", l, err)
	}
}

// Two processes on one store, both running every unfinished job they find: each document is ingested
// once, each passage extracted by one model call. (The lease is long: on a machine so loaded that a
// renewal waits longer than the lease for the store, the other process takes the job over, as it should.)
func TestTwoIngestersShareTheJobs(t *testing.T) {
	e := newIdleEnv(t, graphrag.IngestOptions{Workers: 2, Lease: 20 * time.Second})
	other := graphrag.NewIngester(e.store, e.client, graphrag.NewLLMExtractor(e.client),
		graphrag.IngestOptions{Workers: 2, Lease: 20 * time.Second}, e.logger)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { other.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	e.run()
	var ids []string
	for name, content := range demoFiles(t) {
		through := e.ingester // uploads reach either process
		if len(ids)%2 == 1 {
			through = other
		}
		doc, _, err := through.Submit(context.Background(), name, strings.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, doc.ID)
	}
	chunks := 0
	for _, id := range ids {
		waitDone(t, e.store, id)
		d, err := e.store.Document(context.Background(), id)
		if err != nil || d.ChunksExtracted != d.Chunks {
			t.Errorf("%s: %+v %v", d.Name, d, err)
		}
		chunks += d.Chunks
	}
	time.Sleep(time.Second) // a job the other ingester took twice would still be calling the model
	if calls := e.model.ChatCalls(); calls != chunks {
		t.Errorf("%d extraction calls for %d passages: a job ran twice", calls, chunks)
	}
}

// The leases of jobs whose holders died and nobody took over (a document deleted meanwhile) go away once
// their time has run out; a lease still held stays, and so does any other kind of lease that ran out (a
// chat turn's, which says its process died). A finished job leaves no lease behind.
func TestIngestRemovesJobLeasesThatRanOut(t *testing.T) {
	e := newIdleEnv(t, graphrag.IngestOptions{Workers: 2, Lease: 600 * time.Millisecond})
	ctx := context.Background()
	take := func(name, holder string, ttl time.Duration) {
		t.Helper()
		if _, ok, err := e.store.TakeLease(ctx, name, holder, ttl); err != nil || !ok {
			t.Fatalf("take %s: %v %v", name, ok, err)
		}
	}
	take(graphrag.JobLease("deleted-doc"), "a process that died", time.Millisecond)
	take(graphrag.JobLease("held-doc"), "a process at work", time.Hour)
	take("turn:t1", "a chat process that died", time.Millisecond)
	time.Sleep(5 * time.Millisecond)
	e.run()
	files := demoFiles(t, "munich-city-distances.md")
	doc, _, err := e.ingester.Submit(ctx, "munich-city-distances.md", strings.NewReader(files["munich-city-distances.md"]))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, e.store, doc.ID)
	deadline := time.Now().Add(30 * time.Second)
	for {
		l, err := e.store.Lease(ctx, graphrag.JobLease("deleted-doc"))
		if err != nil {
			t.Fatal(err)
		}
		if l.Holder == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the lease of a dead holder is still there after 30 s: %+v", l)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if l, err := e.store.Lease(ctx, graphrag.JobLease("held-doc")); err != nil || !l.Held || l.Holder != "a process at work" {
		t.Errorf("a lease still held: %+v %v, want it kept", l, err)
	}
	if l, err := e.store.Lease(ctx, "turn:t1"); err != nil || l.Holder != "a chat process that died" {
		t.Errorf("a chat turn's lease that ran out: %+v %v, want it kept (not a job's)", l, err)
	}
	// The worker gives its lease back after it records the job's end (in the other order another process
	// could take the job over and run it again), so the lease may outlive "done" by a moment.
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		l, err := e.store.Lease(ctx, graphrag.JobLease(doc.ID))
		if err == nil && l.Holder == "" {
			break
		}
		if time.Now().After(end) {
			t.Errorf("the finished job's lease 5 s after it was done: %+v %v, want none", l, err)
			break
		}
	}
}
