package llm_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("chunk %d about flight distance number %d", i, i*7)
	}
	return out
}

func TestEmbedBatchedAndOrdered(t *testing.T) {
	s := llmtest.New(t, llmtest.WithEmbedDim(16))
	var failed atomic.Bool
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		// the second batch fails once and is retried
		if r.IsEmbed() && r.Input[0] == "chunk 64 about flight distance number 448" && failed.CompareAndSwap(false, true) {
			return llmtest.Reply{Status: 503}, true
		}
		return llmtest.Reply{}, false
	})
	c := newClient(t, s, func(c *llm.Config) { c.EmbedBatch = 64 })
	in := texts(150)
	vecs, err := c.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(in) {
		t.Fatalf("got %d vectors for %d texts", len(vecs), len(in))
	}
	for i, v := range vecs {
		if !slices.Equal(v, llmtest.Vector(in[i], 16)) {
			t.Fatalf("vector %d is not the one for %q", i, in[i])
		}
	}
	var sizes []int
	for _, r := range s.Requests() {
		if r.Model != "test-embed" {
			t.Errorf("embed model = %q", r.Model)
		}
		sizes = append(sizes, len(r.Input))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{22, 64, 64, 64}) {
		t.Errorf("batch sizes = %v, want 22, 64, 64 and the retried 64", sizes)
	}
	if u := c.Totals(); u.EmbedCalls != 3 || u.EmbedInputs != 150 || u.Retries != 1 {
		t.Errorf("totals = %+v", u)
	}
}

func TestEmbedFailureNamesBatch(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Status: 400, ErrorMessage: "input too long"}, r.IsEmbed() && r.Contains("chunk 3 ")
	})
	c := newClient(t, s, func(c *llm.Config) { c.EmbedBatch = 2 })
	_, err := c.Embed(context.Background(), texts(6))
	if err == nil || !strings.HasPrefix(err.Error(), "llm: embed: batch 2 of 3: 400 bad request: input too long") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedNothing(t *testing.T) {
	s := llmtest.New(t)
	vecs, err := newClient(t, s, nil).Embed(context.Background(), nil)
	if vecs != nil || err != nil || s.EmbedCalls() != 0 {
		t.Fatalf("got %v, %v after %d calls", vecs, err, s.EmbedCalls())
	}
}

func TestEmbedSeparateEndpoint(t *testing.T) {
	chat, embed := llmtest.New(t), llmtest.New(t)
	c := newClient(t, chat, func(c *llm.Config) { c.EmbedBaseURL, c.EmbedAPIKey = embed.URL(), "embed-key" })
	if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if chat.EmbedCalls() != 0 || embed.EmbedCalls() != 1 {
		t.Fatalf("embed calls: chat server %d, embed server %d", chat.EmbedCalls(), embed.EmbedCalls())
	}
	if got := embed.Requests()[0].Header.Get("Authorization"); got != "Bearer embed-key" {
		t.Errorf("Authorization = %q", got)
	}
}
