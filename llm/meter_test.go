package llm_test

import (
	"context"
	"maps"
	"sync"
	"testing"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func TestMeter(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(
		llmtest.Reply{Content: goodVerdict, PromptTokens: 100, CompletionTokens: 10},
		llmtest.Reply{Content: "not json", PromptTokens: 100, CompletionTokens: 5},
		llmtest.Reply{Content: goodVerdict, PromptTokens: 120, CompletionTokens: 10},
		llmtest.Reply{Content: "answer", PromptTokens: 300, CompletionTokens: 50},
		llmtest.Reply{Content: "outside", PromptTokens: 1, CompletionTokens: 1},
	)
	c := newClient(t, s, nil)
	m := llm.NewMeter()
	ctx := llm.WithMeter(context.Background(), m)
	if _, err := llm.Structured[verdict](ctx, c, llm.Request{Purpose: "grade", Messages: user("g")}); err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Structured[verdict](ctx, c, llm.Request{Purpose: "grade", Messages: user("g")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Stream(ctx, llm.Request{Purpose: "generate", Messages: user("q")}, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(ctx, []string{"one two three four"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), llm.Request{Purpose: "other", Messages: user("q")}); err != nil {
		t.Fatal(err)
	}

	u := m.Snapshot()
	if u.Calls != 4 || u.StreamCalls != 1 || u.EmbedCalls != 1 || u.EmbedInputs != 1 || u.EmbedTokens != 4 {
		t.Errorf("counts = %+v", u)
	}
	if u.PromptTokens != 620 || u.CompletionTokens != 75 {
		t.Errorf("tokens = %d/%d, want 620/75", u.PromptTokens, u.CompletionTokens)
	}
	if want := map[string]int{"grade": 3, "generate": 1, "embed": 1}; !maps.Equal(u.ByPurpose, want) {
		t.Errorf("ByPurpose = %v, want %v", u.ByPurpose, want)
	}
	if want := map[string]int{"grade": 345, "generate": 350, "embed": 4}; !maps.Equal(u.TokensByPurpose, want) {
		t.Errorf("TokensByPurpose = %v, want %v", u.TokensByPurpose, want)
	}
	if u.Elapsed <= 0 {
		t.Errorf("Elapsed = %v", u.Elapsed)
	}
	total := c.Totals()
	if total.Calls != 5 || total.PromptTokens != 621 || total.ByPurpose["other"] != 1 {
		t.Errorf("client totals = %+v", total)
	}
	u.ByPurpose["grade"] = 99
	if m.Snapshot().ByPurpose["grade"] != 3 {
		t.Errorf("Snapshot shares its map with the meter")
	}
}

func TestMeterConcurrent(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Content: "ok", PromptTokens: 2, CompletionTokens: 1}, true
	})
	c := newClient(t, s, func(c *llm.Config) { c.MaxConcurrency = 8 })
	m := llm.NewMeter()
	ctx := llm.WithMeter(context.Background(), m)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := c.Chat(ctx, llm.Request{Purpose: "p", Messages: user("q")}); err != nil {
				t.Error(err)
			}
			_ = m.Snapshot()
		})
	}
	wg.Wait()
	if u := m.Snapshot(); u.Calls != 20 || u.PromptTokens != 40 || u.CompletionTokens != 20 || u.ByPurpose["p"] != 20 {
		t.Errorf("usage = %+v", u)
	}
}
