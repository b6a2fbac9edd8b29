package llm_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// A dropped browser cancels the request context mid-stream; nothing the
// client started may outlive the call.
func TestNoGoroutineLeak(t *testing.T) {
	s := llmtest.New(t)
	c := newClient(t, s, func(c *llm.Config) { c.StreamIdleTimeout = 50 * time.Millisecond })
	before := runtime.NumGoroutine()
	for range 5 {
		s.Enqueue(llmtest.Reply{Chunks: []string{"a", "b", "c"}, StallAfter: 1})
		ctx, cancel := context.WithCancel(context.Background())
		_, _ = c.Stream(ctx, llm.Request{Messages: user("q")}, func(string) error { cancel(); return nil })
		s.Enqueue(llmtest.Reply{Chunks: []string{"a", "b"}, StallAfter: 1})
		_, _ = c.Stream(context.Background(), llm.Request{Messages: user("q")}, func(string) error { return nil })
		s.Enqueue(llmtest.Reply{Content: "late", Delay: time.Second})
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
		_, _ = c.Chat(ctx, llm.Request{Messages: user("q")})
		cancel()
	}
	c.CloseIdleConnections()
	noGoroutineLeft(t, before)
}
