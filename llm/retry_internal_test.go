package llm

import (
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"seconds", "2", 2 * time.Second, true},
		{"fraction", "0.5", 500 * time.Millisecond, true},
		{"zero", "0", 0, true},
		{"http date", "Mon, 30 Nov 2026 12:00:03 GMT", 3 * time.Second, true},
		{"date in the past", "Mon, 30 Nov 2026 11:00:00 GMT", 0, true},
		{"huge", "1e300", maxRetryAfter + time.Second, true},
		{"empty", "", 0, false},
		{"negative", "-1", 0, false},
		{"nan", "NaN", 0, false},
		{"garbage", "soon", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.in, now)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestBackoffFullJitter(t *testing.T) {
	c := New(Config{Model: "m", BackoffBase: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond}, nil)
	for n := range 40 {
		ceiling := min(50*time.Millisecond, 10*time.Millisecond<<min(n, 30))
		var sum time.Duration
		for range 200 {
			d := c.backoff(n)
			if d < 0 || d > ceiling {
				t.Fatalf("backoff(%d) = %v, want within [0, %v]", n, d, ceiling)
			}
			sum += d
		}
		if mean := sum / 200; mean < ceiling/4 || mean > ceiling*3/4 {
			t.Errorf("backoff(%d) mean %v, want about half of %v", n, mean, ceiling)
		}
	}
}

func TestDefaults(t *testing.T) {
	c := New(Config{Model: "m", MaxRetries: -1}, nil).cfg
	if c.Timeout != 120*time.Second || c.StreamIdleTimeout != 30*time.Second || c.MaxConcurrency != 4 ||
		c.EmbedConcurrency != 4 ||
		c.MaxRetries != 0 || c.EmbedBatch != 64 || c.BackoffBase != 500*time.Millisecond || c.BackoffMax != 20*time.Second ||
		c.StructuredMode != ModeAuto || c.EmbedModel != "m" || c.EmbedBaseURL != c.BaseURL {
		t.Errorf("defaults = %+v", c)
	}
	if DefaultConcurrency("http://127.0.0.1:8081/v1") != 1 || DefaultEmbedConcurrency("http://localhost:8082/v1") != 2 ||
		DefaultConcurrency("https://api.openai.com/v1") != 64 || DefaultEmbedConcurrency("https://api.openai.com/v1") != 16 {
		t.Errorf("the endpoints' defaults are not 1 and 2 calls at once on loopback, 64 and 16 for a hosted API")
	}
	if New(Config{Model: "m"}, nil).cfg.MaxRetries != 4 {
		t.Errorf("MaxRetries default is not 4")
	}
	if err := (Config{Model: "m", StructuredMode: "grammar"}).Validate(); err == nil {
		t.Errorf("unknown structured mode accepted")
	}
	if got := New(Config{Model: "m", StructuredMode: "grammar"}, nil).cfg.StructuredMode; got != ModeAuto {
		t.Errorf("unknown mode became %q, want auto", got)
	}
}
