package llm_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// Chat calls (streamed or not) and embeddings requests have limits of their own: neither waits for the
// other's slots.
func TestConcurrencyLimit(t *testing.T) {
	s := llmtest.New(t)
	var mu sync.Mutex
	var chat, embed, maxChat, maxEmbed, maxBoth int
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		n, most := &chat, &maxChat
		if r.IsEmbed() {
			n, most = &embed, &maxEmbed
		}
		mu.Lock()
		*n++
		*most, maxBoth = max(*most, *n), max(maxBoth, chat+embed)
		mu.Unlock()
		time.Sleep(60 * time.Millisecond)
		mu.Lock()
		*n--
		mu.Unlock()
		return llmtest.Reply{Content: "ok", Chunks: []string{"o", "k"}}, true
	})
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency, c.EmbedConcurrency, c.EmbedBatch = 2, 1, 1 })
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 9)
	for range 3 {
		wg.Go(func() { _, err := c.Chat(ctx, llm.Request{Messages: user("q")}); errs <- err })
		wg.Go(func() {
			_, err := c.Stream(ctx, llm.Request{Messages: user("q")}, func(string) error { return nil })
			errs <- err
		})
		wg.Go(func() { _, err := c.Embed(ctx, []string{"a", "b"}); errs <- err })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if maxChat != 2 || maxEmbed != 1 || maxBoth != 3 {
		t.Errorf("at once: %d chat calls, %d embeddings requests, %d in all; want MaxConcurrency 2, EmbedConcurrency 1, 3",
			maxChat, maxEmbed, maxBoth)
	}
}

func TestConcurrencySlotWaitRespectsContext(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "slow", Delay: 500 * time.Millisecond})
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 1 })
	go c.Chat(context.Background(), llm.Request{Messages: user("first")})
	for s.ChatCalls() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Chat(ctx, llm.Request{Messages: user("second")})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 300*time.Millisecond {
		t.Fatalf("err = %v after %v, want the deadline while waiting for a slot", err, time.Since(start))
	}
	if s.ChatCalls() != 1 {
		t.Errorf("calls = %d, want only the first", s.ChatCalls())
	}
}
