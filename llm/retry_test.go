package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func chat(c *llm.Client) (llm.Response, error) {
	return c.Chat(context.Background(), llm.Request{Purpose: "grade", Messages: user("hi")})
}

func TestRetryByStatus(t *testing.T) {
	tests := []struct {
		name      string
		fail      llmtest.Reply
		wantCalls int
	}{
		{"400 not retried", llmtest.Reply{Status: 400, ErrorMessage: "bad"}, 1},
		{"401 not retried", llmtest.Reply{Status: 401, ErrorMessage: "no key"}, 1},
		{"404 not retried", llmtest.Reply{Status: 404, ErrorMessage: "no model"}, 1},
		{"422 not retried", llmtest.Reply{Status: 422, ErrorMessage: "bad"}, 1},
		{"quota not retried", llmtest.Reply{Status: 429, ErrorType: "insufficient_quota", ErrorMessage: "You exceeded your current quota"}, 1},
		{"408 retried", llmtest.Reply{Status: 408}, 2},
		{"409 retried", llmtest.Reply{Status: 409}, 2},
		{"429 retried", llmtest.Reply{Status: 429, ErrorMessage: "slow down"}, 2},
		{"500 retried", llmtest.Reply{Status: 500}, 2},
		{"503 retried", llmtest.Reply{Status: 503}, 2},
		{"502 with an HTML body retried", llmtest.Reply{Status: 502, RawBody: "<html>Bad Gateway</html>"}, 2},
		{"200 with a truncated body retried", llmtest.Reply{RawBody: `{"choices":[{"mess`}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.Enqueue(tt.fail, llmtest.Reply{Content: "ok"})
			resp, err := chat(newClient(t, s, nil))
			if got := s.ChatCalls(); got != tt.wantCalls {
				t.Fatalf("calls = %d, want %d (err %v)", got, tt.wantCalls, err)
			}
			if tt.wantCalls == 2 {
				if err != nil || resp.Content != "ok" {
					t.Fatalf("after retry: %q, %v", resp.Content, err)
				}
				return
			}
			if ae, ok := errors.AsType[*llm.APIError](err); !ok || ae.Status != tt.fail.Status {
				t.Fatalf("err = %v, want an APIError with status %d", err, tt.fail.Status)
			}
		})
	}
}

func TestQuotaError(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 429, ErrorType: "insufficient_quota", ErrorMessage: "You exceeded your current quota", RetryAfter: "1"})
	_, err := chat(newClient(t, s, nil))
	if !errors.Is(err, llm.ErrQuota) {
		t.Fatalf("err = %v, want ErrQuota", err)
	}
	if want := "llm: chat (grade): 429 insufficient quota: You exceeded your current quota"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "Rate limit reached", RetryAfter: "1"}, llmtest.Reply{Content: "ok"})
	resp, err := chat(newClient(t, s, nil))
	if err != nil || resp.Content != "ok" {
		t.Fatalf("got %q, %v", resp.Content, err)
	}
	g := gaps(s.Requests())
	if len(g) != 1 || g[0] < time.Second {
		t.Fatalf("gaps = %v, want one of at least 1s", g)
	}
}

func TestRetryAfterTooLongGivesUp(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 429, ErrorMessage: "Rate limit reached", RetryAfter: "3600"}, llmtest.Reply{Content: "ok"})
	_, err := chat(newClient(t, s, nil))
	if want := "llm: chat (grade): 429 rate limited: Rate limit reached"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if s.ChatCalls() != 1 {
		t.Errorf("calls = %d, want 1", s.ChatCalls())
	}
}

func TestServerErrorsRetriedUpToTheCap(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Status: 503, ErrorMessage: "overloaded"}, true
	})
	const base, ceiling = 10 * time.Millisecond, 40 * time.Millisecond
	c := newClient(t, s, func(c *llm.Config) {
		c.MaxRetries, c.BackoffBase, c.BackoffMax = 5, base, ceiling
	})
	_, err := chat(c)
	if ae, ok := errors.AsType[*llm.APIError](err); !ok || ae.Status != 503 {
		t.Fatalf("err = %v, want the 503", err)
	}
	if got := s.ChatCalls(); got != 6 {
		t.Fatalf("calls = %d, want 1 + MaxRetries = 6", got)
	}
	for i, g := range gaps(s.Requests()) {
		bound := min(ceiling, base<<i) + 30*time.Millisecond // scheduling slack
		if g > bound {
			t.Errorf("gap %d = %v, want at most %v", i, g, bound)
		}
	}
	if u := c.Totals(); u.Retries != 5 || u.Failures != 1 || u.Calls != 1 {
		t.Errorf("totals = %+v", u)
	}
}

func TestNoRetries(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 500}, llmtest.Reply{Content: "ok"})
	if _, err := chat(newClient(t, s, func(c *llm.Config) { c.MaxRetries = -1 })); err == nil || s.ChatCalls() != 1 {
		t.Fatalf("err = %v after %d calls, want a failure after 1", err, s.ChatCalls())
	}
}

func TestAttemptTimeoutRetried(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "late", Delay: 5 * time.Second}, llmtest.Reply{Content: "ok"})
	c := newClient(t, s, func(c *llm.Config) { c.Timeout = 100 * time.Millisecond })
	start := time.Now()
	resp, err := chat(c)
	if err != nil || resp.Content != "ok" {
		t.Fatalf("got %q, %v", resp.Content, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("took %v, want about the 100ms timeout", d)
	}
}

func TestAttemptTimeoutError(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) (llmtest.Reply, bool) { return llmtest.Reply{Delay: time.Minute}, true })
	c := newClient(t, s, func(c *llm.Config) { c.Timeout, c.MaxRetries = 50*time.Millisecond, 1 })
	_, err := chat(c)
	if !errors.Is(err, llm.ErrTimeout) || !strings.HasPrefix(err.Error(), "llm: chat (grade): timed out after 50ms") {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if s.ChatCalls() != 2 {
		t.Errorf("calls = %d, want 2", s.ChatCalls())
	}
}

func TestConnectionRefusedRetried(t *testing.T) {
	srv := httptest.NewServer(nil)
	url := srv.URL + "/v1"
	srv.Close()
	c := llm.New(llm.Config{BaseURL: url, Model: "m", MaxRetries: 2, BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond}, nil)
	_, err := c.Chat(context.Background(), llm.Request{Messages: user("hi")})
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err = %v, want connection refused", err)
	}
	if u := c.Totals(); u.Retries != 2 {
		t.Errorf("retries = %d, want 2", u.Retries)
	}
}

func TestCancelStopsDelayedCall(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "late", Delay: 5 * time.Second})
	c := newClient(t, s, func(c *llm.Config) { c.Timeout = 10 * time.Second })
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Chat(ctx, llm.Request{Messages: user("hi")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("returned after %v, want promptly after the 50ms cancel", d)
	}
	if s.ChatCalls() != 1 {
		t.Errorf("calls = %d, want 1 (no retry after cancel)", s.ChatCalls())
	}
}

func TestCancelStopsBackoff(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Status: 429, RetryAfter: "10"})
	c := newClient(t, s, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Chat(ctx, llm.Request{Messages: user("hi")})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("err = %v after %v, want the caller's deadline promptly", err, time.Since(start))
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  llm.APIError
		want string
	}{
		{llm.APIError{Status: 429, Message: "Rate limit reached"}, "429 rate limited: Rate limit reached"},
		{llm.APIError{Status: 500}, "500 internal server error"},
		{llm.APIError{Status: 401, Message: "bad key"}, "401 unauthorized (check the API key): bad key"},
		{llm.APIError{Status: 429, Code: "insufficient_quota"}, "429 insufficient quota"},
		{llm.APIError{Message: "stream broke"}, "error: stream broke"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if got := errors.Is(fmt.Errorf("wrapped: %w", &tt.err), llm.ErrQuota); got != tt.err.IsQuota() {
				t.Errorf("errors.Is(ErrQuota) = %v", got)
			}
		})
	}
}
