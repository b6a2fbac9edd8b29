package neo4j

import (
	"context"
	"testing"
	"time"
)

// SweepLeases removes the leases of a prefix whose time ran out, at most the limit, and keeps those still
// held and those of other prefixes.
func TestSweepLeasesRemovesOnlyRanOutLeasesOfThePrefix(t *testing.T) {
	s := openTest(t, 8)
	ctx := context.Background()
	for name, ttl := range map[string]time.Duration{"ingest:a": time.Millisecond, "ingest:b": time.Millisecond,
		"ingest:c": time.Millisecond, "ingest:held": time.Hour, "turn:t": time.Millisecond} {
		if _, ok, err := s.TakeLease(ctx, name, "holder/"+name, ttl); err != nil || !ok {
			t.Fatalf("take %s: %v %v", name, ok, err)
		}
	}
	time.Sleep(20 * time.Millisecond)
	if n, err := s.SweepLeases(ctx, "ingest:", 2); err != nil || n != 2 {
		t.Fatalf("first sweep, limit 2: %d %v", n, err)
	}
	if n, err := s.SweepLeases(ctx, "ingest:", 10); err != nil || n != 1 {
		t.Fatalf("second sweep: %d %v, want the third lease that ran out", n, err)
	}
	for name, want := range map[string]bool{"ingest:a": false, "ingest:b": false, "ingest:c": false, "ingest:held": true, "turn:t": true} {
		l, err := s.Lease(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if (l.Holder != "") != want {
			t.Errorf("%s after the sweeps: %+v, kept %v", name, l, want)
		}
	}
}
