package llm

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

func TestLoopback(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:8081/v1", true},
		{"http://127.0.0.2:8081/v1", true},
		{"http://localhost:11434/v1", true},
		{"http://LocalHost/v1", true},
		{"http://models.localhost:8080/v1", true},
		{"http://[::1]:8081/v1", true},
		{"https://api.openai.com/v1", false},
		{"http://192.168.1.20:8000/v1", false},
		{"http://10.0.0.5/v1", false},
		{"https://localhost.example.com/v1", false},
		{"::not a url", false},
	} {
		if got := Loopback(tt.url); got != tt.want {
			t.Errorf("Loopback(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

// A waiter whose context ends just as it is granted a slot hands the slot on: whichever wins the race,
// nothing stays in flight, waiting or remembered afterwards.
func TestCancelRacingGrantFreesTheSlot(t *testing.T) {
	s := newScheduler("test", 1, true, slog.New(slog.DiscardHandler))
	for i := range 500 {
		held, err := s.acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(WithLine(context.Background(), NewLine(func(Place) {})))
		got := make(chan error, 1)
		go func() {
			sl, err := s.acquire(ctx)
			if err == nil {
				s.release(sl, outcome{ok: true})
			}
			got <- err
		}()
		for s.slots().Waiting == 0 {
			time.Sleep(time.Microsecond)
		}
		var wg sync.WaitGroup
		wg.Go(func() { s.release(held, outcome{ok: true}) })
		if i%2 == 0 {
			time.Sleep(time.Duration(i%7) * time.Microsecond)
		}
		cancel()
		wg.Wait()
		<-got
		if st := s.slots(); st.InFlight != 0 || st.Waiting != 0 {
			t.Fatalf("round %d: %+v, want nothing in flight or waiting", i, st)
		}
		s.mu.Lock()
		flows, turns := len(s.flows), len(s.turns)
		s.mu.Unlock()
		if flows != 0 || turns != 0 {
			t.Fatalf("round %d: %d lines and %d turns remembered, want none", i, flows, turns)
		}
	}
}

// The limit follows AIMD: halved once per burst of 429s (the calls granted before a cut do not cut again),
// never below 1, grown by one for every limit successes, never above the maximum.
func TestAdaptiveLimit(t *testing.T) {
	s := newScheduler("test", 16, false, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	var burst []slot
	for range 6 {
		sl, _ := s.acquire(ctx)
		burst = append(burst, sl)
	}
	for _, sl := range burst {
		s.release(sl, outcome{overloaded: true})
	}
	if got := s.slots().Limit; got != 8 {
		t.Fatalf("after a burst of six 429s the limit is %d, want 8 (halved once)", got)
	}
	for want := 4; want >= 1; want /= 2 {
		sl, _ := s.acquire(ctx)
		s.release(sl, outcome{overloaded: true})
		if got := s.slots().Limit; got != want {
			t.Fatalf("after another 429 the limit is %d, want %d", got, want)
		}
	}
	sl, _ := s.acquire(ctx)
	s.release(sl, outcome{overloaded: true})
	if got := s.slots().Limit; got != 1 {
		t.Fatalf("a 429 at a limit of 1 left it at %d, want 1", got)
	}
	successes := 0
	for s.slots().Limit < 16 {
		sl, _ := s.acquire(ctx)
		s.release(sl, outcome{ok: true})
		successes++
	}
	// 1 + 2 + ... + 15 successes to climb one step at a time: slowly
	if successes < 100 || successes > 130 {
		t.Errorf("%d successes to grow from 1 to 16, want about 120", successes)
	}
	for range 100 {
		sl, _ := s.acquire(ctx)
		s.release(sl, outcome{ok: true})
	}
	if got := s.slots().Limit; got != 16 {
		t.Errorf("the limit grew to %d, want it to stay at the maximum 16", got)
	}
}

// A Retry-After holds every new call until it has passed, also when slots are free.
func TestRetryAfterPausesNewCalls(t *testing.T) {
	s := newScheduler("test", 4, false, slog.New(slog.DiscardHandler))
	sl, _ := s.acquire(context.Background())
	s.release(sl, outcome{overloaded: true, retryAfter: 150 * time.Millisecond})
	start := time.Now()
	sl, err := s.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.release(sl, outcome{ok: true})
	if waited := time.Since(start); waited < 140*time.Millisecond {
		t.Errorf("a new call was granted %v after a Retry-After of 150ms", waited)
	}
}
