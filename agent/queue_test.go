package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// A question that waits for the model while it is busy with someone else hears its place in line and
// that its turn came; the wait is given back to it, so a run whose time in line is longer than its time
// cap still answers, and the cost says how long it waited. The places are not kept in the trace.
func TestBusyModelQuestionWaitsInLine(t *testing.T) {
	m := newModel(t)
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release)
	m.srv.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if !r.Contains("someone else's question") {
			return llmtest.Reply{}, false
		}
		<-gate
		return say("done"), true
	})
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(false) })
	m.on(taskDirect, func(c call) llmtest.Reply { return say("12 times 7 is 84.") })
	c := llm.New(llm.Config{
		BaseURL: m.srv.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 10 * time.Second, StreamIdleTimeout: 10 * time.Second,
		MaxConcurrency: llm.DefaultConcurrency(m.srv.URL()), // the local server's one call at a time
	}, nil)
	a := agent.New(c, graphrag.NewRetriever(demoStore(t), c), nil, nil, agent.Config{MaxRunTime: 600 * time.Millisecond}, nil)

	other := make(chan error, 1)
	go func() {
		_, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: "someone else's question"}}})
		other <- err
	}()
	for m.srv.ChatCalls() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.AfterFunc(900*time.Millisecond, release) // longer than the time cap, shorter than twice it
	res, rec := ask(t, a, "What is 12 times 7?")
	if err := <-other; err != nil {
		t.Fatal(err)
	}

	queued := of(rec.all(), agent.EventQueued)
	if len(queued) < 2 {
		t.Fatalf("events %v, want the place in line and the end of the wait", rec.all())
	}
	first, last := queued[0], queued[len(queued)-1]
	if first.Queue == nil || !first.Queue.Waiting || first.Queue.Ahead != 0 || first.Summary != "The model is busy; you are next in line" {
		t.Errorf("first place %+v %q, want waiting next in line", first.Queue, first.Summary)
	}
	if last.Queue == nil || last.Queue.Waiting || last.Queue.Waited < 700*time.Millisecond || !strings.HasPrefix(last.Summary, "Waited ") {
		t.Errorf("last place %+v %q, want the wait over after about 900ms", last.Queue, last.Summary)
	}
	if !res.Direct || !strings.Contains(res.Answer, "84") {
		t.Errorf("answer %q: the run did not answer after its time in line", res.Answer)
	}
	for _, ev := range of(res.Trace, agent.EventError) {
		t.Errorf("the run reported %q: its time in line counted against its time cap", ev.Error)
	}
	if res.Usage.Queued < 700*time.Millisecond || res.Usage.Queued > res.Usage.Elapsed {
		t.Errorf("usage %+v, want about 900ms queued of the elapsed time", res.Usage)
	}
	if n := len(of(res.Trace, agent.EventQueued)); n != 0 {
		t.Errorf("%d places in line kept in the trace, want none", n)
	}
}
