package llm

import (
	"context"
	"maps"
	"sync"
	"time"
)

// Usage is accumulated model usage.
type Usage struct {
	Calls            int           // chat completions, streamed or not; each structured attempt counts
	StreamCalls      int           // the streamed part of Calls
	EmbedCalls       int           // embeddings requests (one per batch)
	EmbedInputs      int           // texts embedded
	EmbedTokens      int           // tokens reported for embeddings
	PromptTokens     int           // chat prompt tokens, from usage or estimated as len/4
	CompletionTokens int           // chat completion tokens, from usage or estimated as len/4
	Retries          int           // attempts repeated after a retryable failure
	Failures         int           // calls that ended in an error
	Elapsed          time.Duration // wall time summed over calls (parallel calls add up)

	ByPurpose       map[string]int // calls (chat and embeddings requests) per purpose label
	TokensByPurpose map[string]int // prompt+completion (or embedding) tokens per purpose label
}

// Meter accumulates Usage; safe for concurrent use. The zero value is ready.
type Meter struct {
	mu sync.Mutex
	u  Usage
}

// NewMeter returns an empty Meter.
func NewMeter() *Meter { return &Meter{} }

type meterKey struct{}

// WithMeter returns a context whose model calls are also counted in m.
// Nested meters do not chain: the innermost one counts.
func WithMeter(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

func meterFrom(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Snapshot returns a copy of the usage so far.
func (m *Meter) Snapshot() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.u
	u.ByPurpose = maps.Clone(m.u.ByPurpose)
	u.TokensByPurpose = maps.Clone(m.u.TokensByPurpose)
	if u.ByPurpose == nil {
		u.ByPurpose = map[string]int{}
	}
	if u.TokensByPurpose == nil {
		u.TokensByPurpose = map[string]int{}
	}
	return u
}

// record is one call's contribution to a Meter.
type record struct {
	purpose                  string
	stream, embed, failed    bool
	requests, inputs         int // embeddings: batches sent and texts
	prompt, completion, embT int
	retries                  int
	elapsed                  time.Duration
}

func (m *Meter) add(r record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.u.ByPurpose == nil {
		m.u.ByPurpose = map[string]int{}
		m.u.TokensByPurpose = map[string]int{}
	}
	calls := 1
	if r.embed {
		calls = r.requests
		m.u.EmbedCalls += r.requests
		m.u.EmbedInputs += r.inputs
		m.u.EmbedTokens += r.embT
	} else {
		m.u.Calls++
		if r.stream {
			m.u.StreamCalls++
		}
	}
	if r.failed {
		m.u.Failures++
	}
	m.u.PromptTokens += r.prompt
	m.u.CompletionTokens += r.completion
	m.u.Retries += r.retries
	m.u.Elapsed += r.elapsed
	m.u.ByPurpose[r.purpose] += calls
	m.u.TokensByPurpose[r.purpose] += r.prompt + r.completion + r.embT
}

// account adds r to the client's totals and to the context's meter, if any.
func (c *Client) account(ctx context.Context, r record) {
	c.totals.add(r)
	if m := meterFrom(ctx); m != nil {
		m.add(r)
	}
}
