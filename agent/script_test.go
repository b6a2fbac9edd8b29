package agent_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/rerank"
	"github.com/hopwise/hopwise/websearch"
)

// The tasks of the agent's prompts, as their system text names them.
const (
	taskDecide    = "decide retrieval"
	taskDirect    = "answer directly"
	taskCondense  = "condense follow-up"
	taskHyDE      = "hypothetical passage"
	taskGrade     = "grade documents"
	taskGenerate  = "answer from sources"
	taskAudit     = "audit answer"
	taskRevise    = "revise answer"
	taskTransform = "plan sub-questions"
)

// model is a scripted chat model: each task of the agent is answered by a function of the request, so a
// test reads as the script of the conversation.
type model struct {
	t   testing.TB
	srv *llmtest.Server

	mu    sync.Mutex
	calls map[string]int
}

func newModel(t testing.TB, opts ...llmtest.Option) *model {
	m := &model{t: t, srv: llmtest.New(t, append([]llmtest.Option{llmtest.WithEmbedDim(embedDim)}, opts...)...), calls: map[string]int{}}
	return m
}

// call is one request of a task; N counts the requests of that task so far, from 1.
type call struct {
	llmtest.Request
	N int
}

// on answers the requests of task with f.
func (m *model) on(task string, f func(c call) llmtest.Reply) {
	m.srv.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		if req.IsEmbed() || !strings.HasPrefix(req.System(), "Task: "+task) {
			return llmtest.Reply{}, false
		}
		m.mu.Lock()
		m.calls[task]++
		n := m.calls[task]
		m.mu.Unlock()
		return f(call{Request: req, N: n}), true
	})
}

// count is how many requests of task the model received.
func (m *model) count(task string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[task]
}

// prompts returns the user messages of every request of task, in order.
func (m *model) prompts(task string) []string {
	var out []string
	for _, r := range m.srv.Requests() {
		if !r.IsEmbed() && strings.HasPrefix(r.System(), "Task: "+task) {
			out = append(out, r.LastUser())
		}
	}
	return out
}

func (m *model) client() *llm.Client {
	return llm.New(llm.Config{
		BaseURL: m.srv.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 10 * time.Second, StreamIdleTimeout: 10 * time.Second, MaxConcurrency: 8,
	}, nil)
}

// agent returns an agent over the demo store that talks to the scripted model.
func (m *model) agent(cfg agent.Config, web websearch.Searcher, rr rerank.Reranker) *agent.Agent {
	c := m.client()
	return agent.New(c, graphrag.NewRetriever(demoStore(m.t), c), web, rr, cfg, nil)
}

func reply(v any) llmtest.Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return llmtest.Reply{Content: string(b)}
}

func say(text string) llmtest.Reply { return llmtest.Reply{Content: text} }

// item is one fenced piece of material in a prompt.
type item struct {
	N          int
	From, Text string
}

var dataFence = regexp.MustCompile(`(?s)<data n="(\d+)" from="([^"]*)">\n(.*?)\n</data>`)

func (c call) items() []item {
	var out []item
	for _, m := range dataFence.FindAllStringSubmatch(c.LastUser(), -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, item{N: n, From: m[2], Text: m[3]})
	}
	return out
}

// find returns the number of the first item whose text contains every needle, or 0.
func (c call) find(needles ...string) int {
	for _, it := range c.items() {
		if containsAll(it.Text, needles) {
			return it.N
		}
	}
	return 0
}

// question is the "Question: " line of the prompt.
func (c call) question() string {
	for _, line := range strings.Split(c.LastUser(), "\n") {
		if q, ok := strings.CutPrefix(line, "Question: "); ok {
			return q
		}
	}
	return ""
}

// listed returns the "- " lines under the line title+":".
func (c call) listed(title string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(c.LastUser(), "\n") {
		switch {
		case line == title+":":
			in = true
		case in && strings.HasPrefix(line, "- "):
			out = append(out, line[2:])
		case in:
			return out
		}
	}
	return out
}

type verdict struct {
	N      int    `json:"n"`
	Useful bool   `json:"useful"`
	Reason string `json:"reason"`
}

// grades answers a grading call: useful(item) decides each item and gives the reason.
func grades(c call, hypothesis, missing string, useful func(it item) (bool, string)) llmtest.Reply {
	var vs []verdict
	for _, it := range c.items() {
		ok, why := useful(it)
		vs = append(vs, verdict{N: it.N, Useful: ok, Reason: why})
	}
	return reply(map[string]any{"documents": vs, "hypothesis": hypothesis, "missing": missing})
}

func audit(grounded string, useful bool, critique string, unsupported ...string) llmtest.Reply {
	if unsupported == nil {
		unsupported = []string{}
	}
	return reply(map[string]any{"grounded": grounded, "unsupported": unsupported, "useful": useful, "critique": critique})
}

func queries(qs ...string) llmtest.Reply {
	if qs == nil {
		qs = []string{}
	}
	return reply(map[string]any{"queries": qs})
}

func decide(retrieve bool, qs ...string) llmtest.Reply {
	if qs == nil {
		qs = []string{}
	}
	return reply(map[string]any{"retrieve": retrieve, "queries": qs})
}

// recorder collects the events of a run.
type recorder struct {
	mu     sync.Mutex
	events []agent.Event
}

func (r *recorder) emit(e agent.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []agent.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Event(nil), r.events...)
}

// streamed is the text the token events show after the last answer_reset.
func (r *recorder) streamed() string {
	var b strings.Builder
	for _, e := range r.all() {
		switch e.Type {
		case agent.EventAnswerReset:
			b.Reset()
		case agent.EventToken:
			b.WriteString(e.Delta)
		}
	}
	return b.String()
}

// path lists the nodes that finished, in order.
func path(trace []agent.Event) []string {
	var out []string
	for _, e := range trace {
		if e.Type == agent.EventNodeFinished {
			out = append(out, e.Node)
		}
	}
	return out
}

func of(trace []agent.Event, typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range trace {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func ask(t *testing.T, a *agent.Agent, question string) (agent.Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := a.Run(ctx, agent.Input{Question: question}, rec.emit)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Logf("%d calls in %d rounds: %v", res.Usage.Calls, res.Usage.Rounds, path(res.Trace))
	return res, rec
}

func docNames(cs []agent.Citation) map[string]bool {
	out := map[string]bool{}
	for _, c := range cs {
		if c.DocName != "" {
			out[c.DocName] = true
		}
	}
	return out
}
