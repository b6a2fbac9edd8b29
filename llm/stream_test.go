package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// collect streams req and returns the deltas received.
func collect(ctx context.Context, c *llm.Client, req llm.Request) ([]string, llm.Response, error) {
	var deltas []string
	resp, err := c.Stream(ctx, req, func(d string) error {
		deltas = append(deltas, d)
		return nil
	})
	return deltas, resp, err
}

func TestStream(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Chunks: []string{"600 ", "EUR, ", "because [1]"}, PromptTokens: 40, CompletionTokens: 6, FinishReason: "stop"})
	c := newClient(t, s, nil)
	deltas, resp, err := collect(context.Background(), c, llm.Request{Purpose: "generate", Messages: user("how much?")})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "|") != "600 |EUR, |because [1]" {
		t.Errorf("deltas = %q", deltas)
	}
	want := llm.Response{Content: "600 EUR, because [1]", PromptTokens: 40, CompletionTokens: 6, FinishReason: "stop"}
	if resp != want {
		t.Errorf("resp = %+v, want %+v", resp, want)
	}
	req := s.Requests()[0]
	if !req.Stream || !req.IncludeUsage {
		t.Errorf("request stream=%v include_usage=%v, want both", req.Stream, req.IncludeUsage)
	}
}

func TestStreamEstimatesMissingUsage(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: strings.Repeat("a", 40), OmitUsage: true})
	c := newClient(t, s, nil)
	_, resp, err := collect(context.Background(), c, llm.Request{Messages: []llm.Message{{Role: "user", Content: strings.Repeat("q", 80)}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.PromptTokens != 20 || resp.CompletionTokens != 10 {
		t.Errorf("estimated tokens = %d/%d, want 20/10", resp.PromptTokens, resp.CompletionTokens)
	}
}

func TestStreamStallAfterOutput(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Chunks: []string{"a", "b", "c"}, StallAfter: 2}, llmtest.Reply{Content: "never"})
	idle := 150 * time.Millisecond
	c := newClient(t, s, func(c *llm.Config) { c.StreamIdleTimeout = idle })
	start := time.Now()
	deltas, _, err := collect(context.Background(), c, llm.Request{Purpose: "generate", Messages: user("q")})
	elapsed := time.Since(start)
	if !errors.Is(err, llm.ErrStreamStalled) {
		t.Fatalf("err = %v, want ErrStreamStalled", err)
	}
	if !strings.HasPrefix(err.Error(), "llm: stream (generate): stream stalled: no chunk for 150ms") {
		t.Errorf("err = %q", err)
	}
	if elapsed < idle || elapsed > idle+400*time.Millisecond {
		t.Errorf("stalled stream ended after %v, want just over %v", elapsed, idle)
	}
	if strings.Join(deltas, "") != "ab" || s.ChatCalls() != 1 {
		t.Errorf("deltas %q after %d calls; want \"ab\" and no retry once text was delivered", deltas, s.ChatCalls())
	}
}

func TestStreamStallBeforeOutputRetried(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "never", StallAfter: -1}, llmtest.Reply{Content: "fresh answer"})
	c := newClient(t, s, func(c *llm.Config) { c.StreamIdleTimeout = 100 * time.Millisecond })
	_, resp, err := collect(context.Background(), c, llm.Request{Messages: user("q")})
	if err != nil || resp.Content != "fresh answer" || s.ChatCalls() != 2 {
		t.Fatalf("got %q, %v after %d calls", resp.Content, err, s.ChatCalls())
	}
}

func TestStreamSlowButSteady(t *testing.T) {
	s := llmtest.New(t)
	// Six chunks 150ms apart: the stream outlasts the 600ms idle timeout, no gap does (with room for a busy
	// machine: at 60ms apart against 150ms, CI at a load average of 17 saw its first chunk stall)
	s.Enqueue(llmtest.Reply{Chunks: []string{"a", "b", "c", "d", "e", "f"}, ChunkDelay: 150 * time.Millisecond})
	c := newClient(t, s, func(c *llm.Config) { c.StreamIdleTimeout = 600 * time.Millisecond })
	deltas, _, err := collect(context.Background(), c, llm.Request{Messages: user("q")})
	if err != nil || strings.Join(deltas, "") != "abcdef" {
		t.Fatalf("got %q, %v", deltas, err)
	}
}

func TestStreamCallbackErrorStops(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "a long answer that goes on"}, llmtest.Reply{Content: "never"})
	c := newClient(t, s, nil)
	gone := errors.New("browser went away")
	n := 0
	_, err := c.Stream(context.Background(), llm.Request{Purpose: "generate", Messages: user("q")}, func(string) error {
		n++
		return gone
	})
	if !errors.Is(err, gone) || n != 1 || s.ChatCalls() != 1 {
		t.Fatalf("err = %v after %d deltas and %d calls", err, n, s.ChatCalls())
	}
}

// A stream the caller stops (a model caught repeating itself) still counts what it cost.
func TestStreamStoppedByTheCallerIsAccounted(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "a long answer that goes on and on and on"})
	c := newClient(t, s, nil)
	m := llm.NewMeter()
	_, err := c.Stream(llm.WithMeter(context.Background(), m), llm.Request{Purpose: "generate", Messages: user("a question of some length")},
		func(string) error { return errors.New("enough") })
	if err == nil {
		t.Fatal("no error")
	}
	if u := m.Snapshot(); u.Calls != 1 || u.PromptTokens == 0 || u.CompletionTokens == 0 {
		t.Errorf("usage %+v: want the call and its estimated tokens", u)
	}
}

func TestStreamCancelMidway(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Chunks: []string{"a", "b"}, StallAfter: 1})
	c := newClient(t, s, func(c *llm.Config) { c.StreamIdleTimeout = 10 * time.Second })
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	_, err := c.Stream(ctx, llm.Request{Messages: user("q")}, func(string) error {
		time.AfterFunc(20*time.Millisecond, cancel)
		return nil
	})
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("err = %v after %v, want context.Canceled promptly", err, time.Since(start))
	}
}

func TestStreamErrorStatus(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 429, ErrorType: "insufficient_quota", ErrorMessage: "no money"})
	_, _, err := collect(context.Background(), newClient(t, s, nil), llm.Request{Purpose: "generate", Messages: user("q")})
	if !errors.Is(err, llm.ErrQuota) || s.ChatCalls() != 1 {
		t.Fatalf("err = %v after %d calls, want ErrQuota after 1", err, s.ChatCalls())
	}
}

// The frequency penalty (small local models loop) goes with written answers only: a structured answer's
// JSON repeats its keys by design.
func TestFrequencyPenaltyOnlyForWrittenAnswers(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "an answer"}, llmtest.Reply{Content: goodVerdict})
	c := newClient(t, s, func(c *llm.Config) { c.FrequencyPenalty = 0.5 })
	if _, err := c.Stream(context.Background(), llm.Request{Purpose: "generate", Messages: user("q")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Structured[verdict](context.Background(), c, llm.Request{Messages: user("g")}); err != nil {
		t.Fatal(err)
	}
	penalty := func(i int) any {
		var body map[string]any
		if err := json.Unmarshal(s.Requests()[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		return body["frequency_penalty"]
	}
	if got := penalty(0); got != 0.5 {
		t.Errorf("streamed answer: frequency_penalty = %v, want 0.5", got)
	}
	if got := penalty(1); got != nil {
		t.Errorf("structured answer: frequency_penalty = %v, want none", got)
	}
}
