package graphrag_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// leaseRig is a store holding the six-passage squadron report, ingested with the first model, and what
// a Reindexer needs to extract its graph again with the second.
type leaseRig struct {
	store  graphrag.Store
	m      models
	logger *slog.Logger
}

func newLeaseRig(t *testing.T, open func(t *testing.T, dim int, model string) graphrag.Store) leaseRig {
	t.Helper()
	r := leaseRig{store: open(t, 64, "test-embed"), m: newModels(t, 0), logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	in := graphrag.NewIngester(r.store, r.m.oldClient, graphrag.NewLLMExtractor(r.m.oldClient), graphrag.IngestOptions{Workers: 2, MaxTokens: 40}, r.logger)
	ctx, stop := context.WithCancel(context.WithoutCancel(t.Context()))
	ran := make(chan struct{})
	go func() { defer close(ran); in.Run(ctx) }()
	defer func() { stop(); <-ran }()
	doc, _, err := in.Submit(t.Context(), "squadron.md", strings.NewReader(squadronReport(1)))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, r.store, doc.ID)
	return r
}

// reindexer is a process's Reindexer that extracts the graph again with a second model whose every call
// takes delay, one passage at a time.
func (r leaseRig) reindexer(t *testing.T, delay time.Duration) (*graphrag.Reindexer, func() int) {
	second, client := secondModel(t, delay)
	x := graphrag.NewReindexer(r.store, r.m.oldClient, r.store.EmbeddingSpace(), r.logger).WithGraph(graphrag.GraphReindex{
		Extractor: graphrag.NewLLMExtractor(client), Embed: r.m.oldClient, Model: "second", Concurrency: 1})
	return x, second.ChatCalls
}

// wantHeld checks that err refuses a re-index because holder holds the store's re-index lease.
func wantHeld(t *testing.T, what string, err error, holder string) {
	t.Helper()
	var held *graphrag.ReindexHeldError
	if !errors.As(err, &held) || !errors.Is(err, graphrag.ErrReindexRunning) || held.Holder != holder ||
		!strings.Contains(err.Error(), "already running in another process") {
		t.Fatalf("%s = %v; want it refused: a re-index of %s is running", what, err, holder)
	}
}

// leaseTimes are the lengths the lease tests use on a store: the first re-index's lease, the time each of
// its model calls takes (it must still run, six passages on, after wait), and wait, two and a half lease
// lengths, also the length of the dead process's lease in the take-over test. Neo4j gets three times
// SQLite's: on a private Neo4j at load 22 the second process's TakeLease just after the first's found a
// 2 s lease already run out (a write under load took longer), once in three runs.
func leaseTimes(kind string) (lease, delay, wait time.Duration) {
	lease, delay, wait = 2*time.Second, 1500*time.Millisecond, 5*time.Second
	if kind == "neo4j" {
		lease, delay, wait = 3*lease, 3*delay, 3*wait
	}
	return lease, delay, wait
}

// TestReindexLeaseRefusesASecondProcess: two processes' Reindexers on one store (as two `hopwise reindex
// --graph`, or the CLI beside the Status page's button). While the first extracts the graph again, past
// several of its lease's lengths (it renews it), the second is refused with a message that says a
// re-index runs in another process, and its status shows that process's lease; only the first model
// calls happen. Once the first has ended, its lease is released and the second runs.
func TestReindexLeaseRefusesASecondProcess(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) {
			rig := newLeaseRig(t, open)
			lease, delay, wait := leaseTimes(kind)
			first, firstCalls := rig.reindexer(t, delay)
			first.WithLease(lease)
			second, secondCalls := rig.reindexer(t, 0)
			if first.Holder() == second.Holder() {
				t.Fatalf("two Reindexers share the holder %q", first.Holder())
			}
			done, err := first.Start(t.Context(), graphrag.ReindexOptions{Graph: true, Batch: 2})
			if err != nil {
				t.Fatalf("the first re-index: %v", err)
			}
			wantHeld(t, "a second process's re-index at once", second.Run(t.Context(), graphrag.ReindexOptions{Graph: true}, nil), first.Holder())
			st, err := second.Status(t.Context())
			if err != nil || !st.Elsewhere.Held || st.Elsewhere.Holder != first.Holder() || st.Running || st.GraphResumable() {
				t.Errorf("the second process's status while the first runs = %+v, %v; want the first's lease, nothing to resume", st.Elsewhere, err)
			}
			time.Sleep(wait) // past the lease's length: the first renewed it
			if _, running := first.Progress(); !running {
				t.Fatalf("the first re-index ended within %v; the test needs it longer", wait)
			}
			wantHeld(t, fmt.Sprintf("a second process's re-index %v later", wait), second.Run(t.Context(), graphrag.ReindexOptions{Graph: true}, nil), first.Holder())
			_, err = second.Start(t.Context(), graphrag.ReindexOptions{Graph: true})
			wantHeld(t, "a second process's Start", err, first.Holder())
			<-done
			if p, _ := first.Progress(); !p.Finished || p.Error != "" || p.Done != p.Total || p.Total == 0 {
				t.Fatalf("the first re-index ended with %+v, want it done", p)
			}
			if n := secondCalls(); n != 0 {
				t.Errorf("the refused process asked its model %d times, want none", n)
			}
			calls := firstCalls()
			if l, err := rig.store.Lease(t.Context(), graphrag.ReindexLease); err != nil || l.Held {
				t.Errorf("the re-index lease after the first ended = %+v, %v; want it released", l, err)
			}
			if st, err := second.Status(t.Context()); err != nil || st.Elsewhere.Held {
				t.Errorf("the second process's status after = %+v, %v; want no re-index elsewhere", st.Elsewhere, err)
			}
			if err := second.Run(t.Context(), graphrag.ReindexOptions{Graph: true}, nil); err != nil {
				t.Errorf("the second process's re-index after the first ended: %v", err)
			}
			if n := secondCalls(); n != calls {
				t.Errorf("the second re-index asked its model %d times, want once a passage (%d)", n, calls)
			}
		})
	}
}

// TestReindexLeaseTakenOverAfterItsHolderDies: a re-index lease left by a process that died without
// ending it refuses a re-index until it runs out, when another process takes the re-index over; one left
// by a killed process of this machine is taken over at once.
func TestReindexLeaseTakenOverAfterItsHolderDies(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) {
			rig := newLeaseRig(t, open)
			r, calls := rig.reindexer(t, 0)
			const elsewhere = "reindex/another-machine:pid:[1]/4242/0123456789ab" // a process elsewhere, gone
			_, _, left := leaseTimes(kind)
			if _, ok, err := rig.store.TakeLease(t.Context(), graphrag.ReindexLease, elsewhere, left); err != nil || !ok {
				t.Fatalf("TakeLease for the dead process: %v, %v", ok, err)
			}
			wantHeld(t, "a re-index while the dead process's lease lasts", r.Run(t.Context(), graphrag.ReindexOptions{Graph: true}, nil), elsewhere)
			if calls() != 0 {
				t.Fatalf("the refused re-index asked its model")
			}
			time.Sleep(left + 500*time.Millisecond)
			if err := r.Run(t.Context(), graphrag.ReindexOptions{Graph: true}, nil); err != nil {
				t.Fatalf("a re-index once the dead process's lease ran out: %v", err)
			}
			if calls() == 0 {
				t.Errorf("the re-index that took over asked its model no time")
			}

			// A process of this machine, killed: its PID runs no more.
			cmd := exec.Command("true")
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			parts := strings.Split(graphrag.NewHolder("reindex"), "/")
			parts[2] = strconv.Itoa(cmd.Process.Pid)
			killed := strings.Join(parts, "/")
			if !graphrag.HolderGone(killed) {
				t.Skipf("this machine cannot tell that %s is gone", killed)
			}
			if _, ok, err := rig.store.TakeLease(t.Context(), graphrag.ReindexLease, killed, time.Hour); err != nil || !ok {
				t.Fatalf("TakeLease for the killed process: %v, %v", ok, err)
			}
			if err := r.Run(t.Context(), graphrag.ReindexOptions{Graph: true}, nil); err != nil {
				t.Errorf("a re-index after a killed process of this machine left an hour's lease: %v", err)
			}
		})
	}
}
