package loadtest

import (
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    int
		want time.Duration
	}{{50, 50 * time.Millisecond}, {95, 95 * time.Millisecond}, {99, 99 * time.Millisecond}, {100, 100 * time.Millisecond}} {
		if got := pctD(ds, tc.p); got != tc.want {
			t.Errorf("p%d = %v, want %v", tc.p, got, tc.want)
		}
	}
	if pctD(nil, 95) != 0 {
		t.Error("p95 of nothing is not 0")
	}
}

func TestSummarize(t *testing.T) {
	s := settings{clients: 2, latency: 50 * time.Millisecond}
	results := []askResult{
		{latency: 400 * time.Millisecond, firstToken: 200 * time.Millisecond, rounds: 4, calls: 4},
		{latency: 800 * time.Millisecond, firstToken: 300 * time.Millisecond, rounds: 8, calls: 9},
		{err: "HTTP 500"},
	}
	got := summarize(results, 2*time.Second, s)
	want := "| 2 | 3 | 1 | 1.00 q/s | 400ms | 800ms | 800ms | 200ms | 6.0 | 6.5 | 400ms | 2.00 | 2.00 / 2.00 |"
	if !strings.Contains(got, want) {
		t.Errorf("report:\n%s\nwant the row\n%s", got, want)
	}
}
