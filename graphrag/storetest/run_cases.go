package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

var runCases = []testCase{
	{"run events are kept in order, once each, and deleted", testRunEvents},
	{"a lease has one holder until its time is up or it is released", testLeases},
	{"of processes taking a free lease at once, one gets it", testLeaseRace},
	{"the events of ended runs and leases that ran out long ago are pruned", testPruneRuns},
}

// testPruneRuns: a run being answered keeps its events; one whose process died keeps them for the
// retention after its lease ran out (its turn is settled from them); one that ended (its lease released)
// loses them at the next prune; leases that ran out before the retention go, the others stay.
func testPruneRuns(t *testing.T, f *fixture) {
	events := func(id string) int {
		t.Helper()
		got, err := f.s.RunEvents(f.ctx, id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	lease := func(name string, ttl time.Duration) {
		t.Helper()
		if _, ok, err := f.s.TakeLease(f.ctx, name, "p1", ttl); err != nil || !ok {
			t.Fatalf("TakeLease(%s): %v %v", name, ok, err)
		}
	}
	for _, id := range []string{"live", "dead", "ended"} {
		if err := f.s.AppendRunEvents(f.ctx, id, []graphrag.RunEvent{{Seq: 1, Data: []byte(`{}`)}, {Seq: 2, Data: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	lease(graphrag.RunLease("live"), time.Hour)
	lease(graphrag.RunLease("dead"), time.Millisecond) // its process died
	lease("ingest:d1", time.Hour)
	lease("ingest:d2", time.Millisecond)
	time.Sleep(20 * time.Millisecond)

	// Within the retention: only the ended run's events go.
	ev, ls, err := f.s.PruneRuns(f.ctx, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if ev != 2 || ls != 0 || events("live") != 2 || events("dead") != 2 || events("ended") != 0 {
		t.Fatalf("pruned %d events and %d leases; left live %d, dead %d, ended %d", ev, ls, events("live"), events("dead"), events("ended"))
	}
	// Past it: the dead run's events and the leases that ran out go; the held ones stay.
	ev, ls, err = f.s.PruneRuns(f.ctx, time.Now().Add(30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if ev != 2 || ls != 2 || events("live") != 2 || events("dead") != 0 {
		t.Fatalf("pruned %d events and %d leases; left live %d, dead %d", ev, ls, events("live"), events("dead"))
	}
	for name, held := range map[string]bool{graphrag.RunLease("live"): true, "ingest:d1": true, graphrag.RunLease("dead"): false, "ingest:d2": false} {
		l, err := f.s.Lease(f.ctx, name)
		if err != nil || (l.Holder != "") != held {
			t.Errorf("lease %s after pruning: %+v %v, want kept %v", name, l, err, held)
		}
	}
	if ev, ls, err := f.s.PruneRuns(f.ctx, time.Now().Add(30*time.Minute)); err != nil || ev != 0 || ls != 0 {
		t.Errorf("a second prune removed %d events and %d leases (%v)", ev, ls, err)
	}
}

func testRunEvents(t *testing.T, f *fixture) {
	ev := func(from, to int) []graphrag.RunEvent {
		var out []graphrag.RunEvent
		for i := from; i <= to; i++ {
			out = append(out, graphrag.RunEvent{Seq: i, Data: fmt.Appendf(nil, `{"n":%d}`, i)})
		}
		return out
	}
	check := func(id string, after, limit int, want []graphrag.RunEvent) {
		t.Helper()
		got, err := f.s.RunEvents(f.ctx, id, after, limit)
		if err != nil {
			t.Fatalf("RunEvents(%s, %d): %v", id, after, err)
		}
		if len(got) != len(want) {
			t.Fatalf("RunEvents(%s, %d, %d): %d events, want %d", id, after, limit, len(got), len(want))
		}
		for i := range got {
			if got[i].Seq != want[i].Seq || string(got[i].Data) != string(want[i].Data) {
				t.Fatalf("RunEvents(%s, %d)[%d] = %d %s, want %d %s", id, after, i, got[i].Seq, got[i].Data, want[i].Seq, want[i].Data)
			}
		}
	}
	if err := f.s.AppendRunEvents(f.ctx, "t1", ev(1, 3)); err != nil {
		t.Fatal(err)
	}
	// The same events again (a write whose answer was lost, then repeated) change nothing, even with other
	// data; the run's next ones follow.
	again := ev(2, 5)
	again[0].Data = []byte(`{"n":"changed"}`)
	if err := f.s.AppendRunEvents(f.ctx, "t1", again); err != nil {
		t.Fatal(err)
	}
	if err := f.s.AppendRunEvents(f.ctx, "t2", ev(1, 2)); err != nil {
		t.Fatal(err)
	}
	check("t1", 0, 0, ev(1, 5))
	check("t1", 3, 0, ev(4, 5))
	check("t1", 1, 2, ev(2, 3))
	check("t1", 5, 0, nil)
	check("unknown", 0, 0, nil)
	if err := f.s.DeleteRunEvents(f.ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	check("t1", 0, 0, nil)
	check("t2", 0, 0, ev(1, 2))
}

func testLeases(t *testing.T, f *fixture) {
	take := func(name, holder string, ttl time.Duration, want bool) graphrag.Lease {
		t.Helper()
		l, ok, err := f.s.TakeLease(f.ctx, name, holder, ttl)
		if err != nil {
			t.Fatalf("TakeLease(%s, %s): %v", name, holder, err)
		}
		if ok != want {
			t.Fatalf("TakeLease(%s, %s) = %v (lease %+v), want %v", name, holder, ok, l, want)
		}
		return l
	}
	read := func(name string) graphrag.Lease {
		t.Helper()
		l, err := f.s.Lease(f.ctx, name)
		if err != nil {
			t.Fatalf("Lease(%s): %v", name, err)
		}
		return l
	}
	if l := read("job"); l.Held || l.Holder != "" {
		t.Fatalf("a lease never taken: %+v", l)
	}
	l := take("job", "a", time.Minute, true)
	if l.Holder != "a" || !l.Held || time.Until(l.Until) < 50*time.Second {
		t.Fatalf("taken: %+v", l)
	}
	if l := take("job", "b", time.Minute, false); l.Holder != "a" || !l.Held {
		t.Fatalf("another holder got %+v", l)
	}
	take("job", "a", time.Minute, true) // a renewal
	take("other", "b", time.Minute, true)
	if err := f.s.ReleaseLease(f.ctx, "job", "b"); err != nil { // not b's: it stays
		t.Fatal(err)
	}
	if l := read("job"); l.Holder != "a" || !l.Held {
		t.Fatalf("released by another holder: %+v", l)
	}
	if err := f.s.ReleaseLease(f.ctx, "job", "a"); err != nil {
		t.Fatal(err)
	}
	if l := read("job"); l.Held {
		t.Fatalf("released: %+v", l)
	}
	take("job", "b", time.Minute, true)

	// A lease whose time is up is anybody's.
	take("short", "a", 300*time.Millisecond, true)
	take("short", "b", time.Minute, false)
	time.Sleep(600 * time.Millisecond)
	if l := read("short"); l.Held || l.Holder != "a" {
		t.Fatalf("after its time: %+v, want a's, not held", l)
	}
	if l := take("short", "b", time.Minute, true); l.Holder != "b" {
		t.Fatalf("taken over: %+v", l)
	}
	take("short", "a", time.Minute, false)
}

func testLeaseRace(t *testing.T, f *fixture) {
	const holders = 8
	for round := range 5 {
		name := fmt.Sprint("race-", round)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var winners []string
		for h := range holders {
			wg.Go(func() {
				holder := fmt.Sprint("p", h)
				_, ok, err := f.s.TakeLease(f.ctx, name, holder, time.Minute)
				if err != nil {
					t.Errorf("TakeLease(%s, %s): %v", name, holder, err)
					return
				}
				if ok {
					mu.Lock()
					winners = append(winners, holder)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("%s: holders %v, want exactly one", name, winners)
		}
		if l, err := f.s.Lease(f.ctx, name); err != nil || l.Holder != winners[0] {
			t.Fatalf("%s: lease %+v %v, want %s's", name, l, err, winners[0])
		}
	}
}
