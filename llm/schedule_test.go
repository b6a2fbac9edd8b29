package llm_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// holdServer answers every chat call after delay, except those whose question contains "hold", which wait
// until release is called.
func holdServer(t *testing.T, delay time.Duration) (*llmtest.Server, func()) {
	s := llmtest.New(t)
	gate := make(chan struct{})
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Contains("hold") {
			<-gate
		}
		return llmtest.Reply{Content: "ok", Delay: delay}, true
	})
	return s, sync.OnceFunc(func() { close(gate) })
}

// waitFor polls cond for up to two seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func waiting(c *llm.Client) int { chat, _ := c.Slots(); return chat.Waiting }

// A short question's calls are not queued behind all of a long one's: with one call at a time and six of
// the long question's calls already waiting, each call of the short question is served after at most one
// more of the long one's.
func TestFairShareBetweenQuestions(t *testing.T) {
	s, release := holdServer(t, 20*time.Millisecond)
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 1 })
	long := llm.WithLine(context.Background(), llm.NewLine(nil))
	short := llm.WithLine(context.Background(), llm.NewLine(nil))
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.Chat(long, llm.Request{Messages: user("long hold")}) })
	waitFor(t, "the long question's first call", func() bool { return s.ChatCalls() == 1 })
	for i := range 6 {
		wg.Go(func() { _, _ = c.Chat(long, llm.Request{Messages: user(fmt.Sprintf("long %d", i))}) })
	}
	waitFor(t, "six calls waiting", func() bool { return waiting(c) == 6 })
	wg.Go(func() {
		for i := range 2 {
			if _, err := c.Chat(short, llm.Request{Messages: user(fmt.Sprintf("short %d", i))}); err != nil {
				t.Error(err)
			}
		}
	})
	waitFor(t, "the short question's call waiting", func() bool { return waiting(c) == 7 })
	release()
	wg.Wait()
	var order []string
	for _, r := range s.Requests() {
		order = append(order, strings.Fields(r.LastUser())[0])
	}
	// the first long call was in flight when the short question came; then at most one long call before
	// each short one
	var shorts []int
	for i, who := range order {
		if who == "short" {
			shorts = append(shorts, i)
		}
	}
	if len(shorts) != 2 || shorts[0] > 2 || shorts[1]-shorts[0] > 2 {
		t.Errorf("served in the order %v: the short question's calls waited behind the long question's", order)
	}
}

// A 429 halves the limit once for the calls already sent (not once per 429), no call is sent before its
// Retry-After, the calls are served at the lower limit, and successes grow the limit back to the
// configured maximum, never above it.
func TestRateLimitHalvesLimitAndHonoursRetryAfter(t *testing.T) {
	s := llmtest.New(t)
	var mu sync.Mutex
	var n, inFlight, maxAfter int
	limited := make(chan time.Time, 8)
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		mu.Lock()
		n++
		first := n <= 8
		if !first {
			inFlight++
			maxAfter = max(maxAfter, inFlight)
		}
		mu.Unlock()
		if first {
			time.Sleep(30 * time.Millisecond)
			limited <- time.Now()
			return llmtest.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down", RetryAfter: "0.3"}, true
		}
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		return llmtest.Reply{Content: "ok"}, true
	})
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 8 })
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Chat(context.Background(), llm.Request{Messages: user("q")}); err != nil {
				t.Error(err)
			}
		})
	}
	firstLimited := <-limited
	// a new call, not a retry, waits for the Retry-After too
	waitFor(t, "the 429 seen by the client", func() bool { chat, _ := c.Slots(); return chat.PausedFor > 0 })
	if _, err := c.Chat(context.Background(), llm.Request{Messages: user("fresh")}); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	reqs := s.Requests()
	if len(reqs) != 17 {
		t.Fatalf("%d requests, want 8 rate limited, 8 retried and 1 more", len(reqs))
	}
	for _, r := range reqs[8:] {
		if gap := r.At.Sub(firstLimited); gap < 290*time.Millisecond {
			t.Errorf("%q was sent %v after the first 429, before its Retry-After of 300ms", r.LastUser(), gap)
		}
	}
	if maxAfter > 4 {
		t.Errorf("%d calls at once after the 429s, want the limit halved once from 8 to 4", maxAfter)
	}
	chat, _ := c.Slots()
	if chat.Limit < 4 || chat.Limit >= 8 || chat.Max != 8 {
		t.Errorf("after the burst of 429s and 9 successes: %+v, want a limit from 4 up, below the maximum 8", chat)
	}
	for range 40 {
		if _, err := c.Chat(context.Background(), llm.Request{Messages: user("q")}); err != nil {
			t.Fatal(err)
		}
	}
	if chat, _ := c.Slots(); chat.Limit != 8 {
		t.Errorf("after 40 more successes the limit is %d, want it back at the maximum 8 and not above", chat.Limit)
	}
}

// Each 429 of calls sent after the last cut halves the limit again, but never below one call at a time;
// running out of quota is not a reason to send fewer calls.
func TestRateLimitNeverBelowOne(t *testing.T) {
	s := llmtest.New(t)
	for range 5 {
		s.Enqueue(llmtest.Reply{Status: 429, ErrorMessage: "slow down"})
	}
	s.Enqueue(llmtest.Reply{Content: "ok"})
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency, c.MaxRetries = 4, 4 })
	if _, err := c.Chat(context.Background(), llm.Request{Messages: user("q")}); err == nil {
		t.Fatal("five 429s and no error")
	}
	if chat, _ := c.Slots(); chat.Limit != 1 {
		t.Errorf("after five 429s one after the other the limit is %d, want 1", chat.Limit)
	}
	if _, err := c.Chat(context.Background(), llm.Request{Messages: user("q")}); err != nil {
		t.Fatal(err)
	}
	if chat, _ := c.Slots(); chat.Limit != 2 {
		t.Errorf("one success at a limit of 1 left it at %d, want 2", chat.Limit)
	}

	q := llmtest.New(t)
	q.Enqueue(llmtest.Reply{Status: 429, ErrorType: "insufficient_quota", ErrorMessage: "no money"})
	c = newClient(t, q, func(c *llm.Config) { c.MaxConcurrency = 4 })
	if _, err := c.Chat(context.Background(), llm.Request{Messages: user("q")}); !errors.Is(err, llm.ErrQuota) {
		t.Fatalf("err = %v, want out of quota", err)
	}
	if chat, _ := c.Slots(); chat.Limit != 4 {
		t.Errorf("out of quota cut the limit to %d, want it left at 4", chat.Limit)
	}
}

// placeLog keeps the places a line was told, in order.
type placeLog struct {
	mu     sync.Mutex
	places []llm.Place
}

func (p *placeLog) add(pl llm.Place) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.places = append(p.places, pl)
}

// aheads is the Ahead of each waiting place, then -1 for the end of the wait.
func (p *placeLog) aheads() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []int
	for _, pl := range p.places {
		if pl.Waiting {
			out = append(out, pl.Ahead)
		} else {
			out = append(out, -1)
		}
	}
	return out
}

func (p *placeLog) ended() (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.places) == 0 || p.places[len(p.places)-1].Waiting {
		return 0, false
	}
	return p.places[len(p.places)-1].Waited, true
}

// Questions that wait hear how many are served before them as the line moves, then that the wait is over;
// a question that never waits hears nothing.
func TestQueuePositionReported(t *testing.T) {
	s, release := holdServer(t, 400*time.Millisecond)
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 1 })
	var first placeLog
	ctx := llm.WithLine(context.Background(), llm.NewLine(first.add))
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.Chat(ctx, llm.Request{Messages: user("hold")}) })
	waitFor(t, "the first call", func() bool { return s.ChatCalls() == 1 })
	logs := make([]*placeLog, 3)
	for i := range logs {
		logs[i] = &placeLog{}
		ctx := llm.WithLine(context.Background(), llm.NewLine(logs[i].add))
		wg.Go(func() {
			if _, err := c.Chat(ctx, llm.Request{Messages: user("q")}); err != nil {
				t.Error(err)
			}
		})
		waitFor(t, "a call waiting", func() bool { return waiting(c) == i+1 })
	}
	time.Sleep(300 * time.Millisecond)
	release()
	wg.Wait()
	want := [][]int{{0, -1}, {1, 0, -1}, {2, 1, 0, -1}}
	for i, l := range logs {
		waitFor(t, "the end of the wait reported", func() bool { _, ok := l.ended(); return ok })
		if got := l.aheads(); !slices.Equal(got, want[i]) {
			t.Errorf("question %d waiting heard %v, want %v (-1: the wait is over)", i+1, got, want[i])
		}
		if waited, _ := l.ended(); waited < 300*time.Millisecond {
			t.Errorf("question %d waited %v by its report, want at least 300ms", i+1, waited)
		}
	}
	if got := first.aheads(); len(got) != 0 {
		t.Errorf("the question served at once heard %v, want nothing", got)
	}
}

// A question whose calls wait only for its own other calls (grading batches on a server that takes one call
// at a time) is not told the model is busy.
func TestOwnCallsAreNotAWaitInLine(t *testing.T) {
	s, release := holdServer(t, 100*time.Millisecond)
	release()
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 1 })
	var log placeLog
	ctx := llm.WithLine(context.Background(), llm.NewLine(log.add))
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := c.Chat(ctx, llm.Request{Messages: user("q")}); err != nil {
				t.Error(err)
			}
		})
	}
	waitFor(t, "two calls waiting", func() bool { return waiting(c) == 2 })
	wg.Wait()
	time.Sleep(50 * time.Millisecond)
	if got := log.aheads(); len(got) != 0 {
		t.Errorf("a question waiting for its own calls heard %v, want nothing", got)
	}
}

// A call whose context ends while it waits leaves the line at once: it is never sent, its line hears the
// wait is over, and the next call takes the slot.
func TestCancelWhileQueued(t *testing.T) {
	s, release := holdServer(t, 0)
	defer release()
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 1 })
	go func() { _, _ = c.Chat(context.Background(), llm.Request{Messages: user("hold")}) }()
	waitFor(t, "the first call", func() bool { return s.ChatCalls() == 1 })
	var log placeLog
	ctx, cancel := context.WithCancel(llm.WithLine(context.Background(), llm.NewLine(log.add)))
	errc := make(chan error, 1)
	go func() { _, err := c.Chat(ctx, llm.Request{Messages: user("cancelled")}); errc <- err }()
	waitFor(t, "the second call waiting", func() bool { return waiting(c) == 1 })
	waitFor(t, "its place reported", func() bool { return len(log.aheads()) == 1 })
	start := time.Now()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) || time.Since(start) > 200*time.Millisecond {
		t.Fatalf("err = %v after %v, want cancelled at once", err, time.Since(start))
	}
	if chat, _ := c.Slots(); chat.Waiting != 0 || chat.InFlight != 1 {
		t.Errorf("after the cancel: %+v, want nobody waiting and the first call in flight", chat)
	}
	waitFor(t, "the end of the wait reported", func() bool { _, ok := log.ended(); return ok })
	release()
	waitFor(t, "the slot free", func() bool { chat, _ := c.Slots(); return chat.InFlight == 0 })
	if _, err := c.Chat(context.Background(), llm.Request{Messages: user("next")}); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Requests() {
		if r.Contains("cancelled") {
			t.Error("the call cancelled while it waited was sent")
		}
	}
}

// Lines that wait, move up, give up or are served leave no goroutine behind.
func TestSchedulerNoGoroutineLeak(t *testing.T) {
	s, release := holdServer(t, 5*time.Millisecond)
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 2 })
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.Chat(context.Background(), llm.Request{Messages: user("hold")}) })
	for i := range 20 {
		var log placeLog
		ctx, cancel := context.WithCancel(llm.WithLine(context.Background(), llm.NewLine(log.add)))
		wg.Go(func() {
			defer cancel()
			for range 3 {
				_, _ = c.Chat(ctx, llm.Request{Messages: user("q")})
			}
		})
		if i%3 == 0 {
			time.AfterFunc(time.Duration(i)*time.Millisecond, cancel)
		}
	}
	time.Sleep(50 * time.Millisecond)
	release()
	wg.Wait()
	c.CloseIdleConnections()
	noGoroutineLeft(t, before)
	if chat, _ := c.Slots(); chat.InFlight != 0 || chat.Waiting != 0 {
		t.Errorf("at the end: %+v, want nothing in flight or waiting", chat)
	}
}
