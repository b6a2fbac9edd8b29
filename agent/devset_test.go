package agent_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
	"github.com/hopwise/hopwise/websearch"
	"github.com/hopwise/hopwise/websearch/websearchtest"
)

type devQuestion struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Question string   `json:"question"`
	GoldDocs []string `json:"gold_docs"`
}

func loadDevSet(t *testing.T) []devQuestion {
	t.Helper()
	var out []devQuestion
	sc := bufio.NewScanner(bytes.NewReader(samples.Questions()))
	for sc.Scan() {
		var q devQuestion
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("dev set: %v", err)
		}
		out = append(out, q)
	}
	return out
}

// docTitles maps each sample document to its first heading: what an oracle asks for when it lacks that
// document.
func docTitles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range samples.List() {
		line, _, _ := strings.Cut(string(f.Body), "\n")
		out[f.Name] = strings.TrimPrefix(line, "# ")
	}
	return out
}

// oracle is a model that judges by the dev set's gold documents: a source is useful when it comes from a
// gold document (or, for out-of-corpus questions, from the web), an answer is useful once every gold
// document is among its sources, and a missing gold document is asked for by its title. It stands for a
// competent model, so that the counts measure the loop's structure, not a model's mistakes.
type oracle struct {
	q      devQuestion
	titles map[string]string
	mu     sync.Mutex
	found  map[string]bool
}

func (o *oracle) gold(from string) bool {
	if strings.HasPrefix(from, "web page") {
		return o.q.Category == "out_of_corpus"
	}
	return slices.ContainsFunc(o.q.GoldDocs, func(d string) bool { return strings.Contains(from, d) })
}

func (o *oracle) note(from string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, d := range o.q.GoldDocs {
		if strings.Contains(from, d) {
			o.found[d] = true
		}
	}
	if strings.HasPrefix(from, "web page") {
		o.found["web"] = true
	}
}

func (o *oracle) missing() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, d := range o.q.GoldDocs {
		if !o.found[d] {
			out = append(out, o.titles[d])
		}
	}
	return out
}

// complete reports whether sources (the from attributes of a prompt) cover the question.
func (o *oracle) complete(froms []string) bool {
	if len(o.q.GoldDocs) == 0 {
		return o.q.Category == "out_of_corpus" && slices.ContainsFunc(froms, func(f string) bool { return strings.HasPrefix(f, "web page") })
	}
	for _, d := range o.q.GoldDocs {
		if !slices.ContainsFunc(froms, func(f string) bool { return strings.Contains(f, d) }) {
			return false
		}
	}
	return true
}

func froms(c call) []string {
	var out []string
	for _, it := range c.items() {
		out = append(out, it.From)
	}
	return out
}

func (o *oracle) scriptAgent(m *model) {
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true) })
	m.on(taskGrade, func(c call) llmtest.Reply {
		var vs []verdict
		for _, it := range c.items() {
			ok := o.gold(it.From)
			if ok {
				o.note(it.From)
			}
			vs = append(vs, verdict{N: it.N, Useful: ok, Reason: "oracle"})
		}
		missing := strings.Join(o.missing(), "; ")
		if len(o.q.GoldDocs) == 0 {
			missing = "the answer is in no document"
		}
		return reply(map[string]any{"documents": vs, "hypothesis": "Needed: " + missing, "missing": missing})
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		var cites []string
		for _, it := range c.items() {
			cites = append(cites, fmt.Sprintf("[%d]", it.N))
		}
		return say("The answer " + strings.Join(cites, ""))
	})
	m.on(taskAudit, func(c call) llmtest.Reply {
		if o.complete(froms(c)) {
			return audit("fully", true, "")
		}
		return audit("fully", false, "Part of the question is not answered.")
	})
	m.on(taskTransform, func(c call) llmtest.Reply {
		if len(o.q.GoldDocs) == 0 {
			return queries()
		}
		return queries(o.missing()...)
	})
}

// The seed's Self-RAG, rebuilt for counting: decide; retrieve; one call per document to judge relevance,
// one after the other; generate; a support audit with up to 3 revisions; a usefulness audit with up to 3
// query rewrites, each replacing the documents of the last retrieval.
const (
	seedDecide     = "Task: seed decide"
	seedRelevance  = "Task: seed relevance"
	seedGenerate   = "Task: seed generate"
	seedSupport    = "Task: seed support"
	seedRevise     = "Task: seed revise"
	seedUsefulness = "Task: seed usefulness"
	seedRewrite    = "Task: seed rewrite"
)

func (o *oracle) scriptSeed(m *model) {
	on := func(task string, f func(c call) llmtest.Reply) {
		m.on(strings.TrimPrefix(task, "Task: "), f)
	}
	on(seedDecide, func(c call) llmtest.Reply { return reply(map[string]bool{"should_retrieve": true}) })
	on(seedRelevance, func(c call) llmtest.Reply {
		ok := o.gold(c.items()[0].From)
		if ok {
			o.note(c.items()[0].From)
		}
		return reply(map[string]bool{"is_relevant": ok})
	})
	on(seedGenerate, func(c call) llmtest.Reply { return say("The answer.") })
	on(seedSupport, func(c call) llmtest.Reply { return reply(map[string]string{"support_status": "fully_supported"}) })
	on(seedUsefulness, func(c call) llmtest.Reply {
		return reply(map[string]any{"is_useful": o.complete(froms(c)), "critique": "oracle"})
	})
	on(seedRewrite, func(c call) llmtest.Reply {
		q := o.q.Question
		if miss := o.missing(); len(miss) > 0 {
			q = miss[0]
		}
		return reply(map[string]string{"retrieval_query": q})
	})
}

type seedAnswer struct {
	ShouldRetrieve bool   `json:"should_retrieve"`
	IsRelevant     bool   `json:"is_relevant"`
	SupportStatus  string `json:"support_status"`
	IsUseful       bool   `json:"is_useful"`
	Critique       string `json:"critique"`
	RetrievalQuery string `json:"retrieval_query"`
}

// seedRun runs the seed's structure and returns its model calls; every call waits for the previous one.
func seedRun(ctx context.Context, c *llm.Client, r *graphrag.Retriever, question string, k int) (calls int, answered bool, err error) {
	ask := func(task, user string) (seedAnswer, error) {
		calls++
		resp, err := c.Chat(ctx, llm.Request{Messages: []llm.Message{{Role: "system", Content: task}, {Role: "user", Content: user}}})
		if err != nil {
			return seedAnswer{}, err
		}
		var a seedAnswer
		_ = json.Unmarshal([]byte(resp.Content), &a)
		return a, nil
	}
	fence := func(docs []graphrag.ScoredChunk) string {
		var b strings.Builder
		for i, d := range docs {
			fmt.Fprintf(&b, "<data n=\"%d\" from=\"document %s\">\n%s\n</data>\n", i+1, d.DocName, d.Text)
		}
		return b.String()
	}
	if _, err := ask(seedDecide, "Question: "+question); err != nil {
		return calls, false, err
	}
	query := question
	for rewrite := 0; ; rewrite++ {
		found, err := r.Search(ctx, []graphrag.Query{{Text: query}}, k)
		if err != nil {
			return calls, false, err
		}
		var relevant []graphrag.ScoredChunk
		for _, d := range found {
			a, err := ask(seedRelevance, "Question: "+question+"\n"+fence([]graphrag.ScoredChunk{d}))
			if err != nil {
				return calls, false, err
			}
			if a.IsRelevant {
				relevant = append(relevant, d)
			}
		}
		if len(relevant) == 0 {
			return calls, false, nil
		}
		if _, err := ask(seedGenerate, "Question: "+question+"\n"+fence(relevant)); err != nil {
			return calls, false, err
		}
		for revision := 0; ; revision++ {
			a, err := ask(seedSupport, fence(relevant))
			if err != nil {
				return calls, false, err
			}
			if a.SupportStatus == "fully_supported" || revision == 3 {
				break
			}
			if _, err := ask(seedRevise, fence(relevant)); err != nil {
				return calls, false, err
			}
		}
		a, err := ask(seedUsefulness, "Question: "+question+"\n"+fence(relevant))
		if err != nil {
			return calls, false, err
		}
		if a.IsUseful {
			return calls, true, nil
		}
		if rewrite == 3 {
			return calls, false, nil
		}
		rw, err := ask(seedRewrite, "Question: "+question)
		if err != nil {
			return calls, false, err
		}
		query = rw.RetrievalQuery
	}
}

type tally struct {
	n                        int
	calls, rounds, seedCalls int
	answered, seedAnswered   int
	notFound, usedWeb        int
}

// TestDevSetCallsAndRounds counts, for each category of the dev set, the model calls and sequential
// rounds per question of the agent (web fallback on, a fake provider) next to the seed's Self-RAG, which
// grades each document in its own call, with the same oracle model. Run with -v for the table.
func TestDevSetCallsAndRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("dev set in -short mode")
	}
	questions := loadDevSet(t)
	titles := docTitles(t)
	type outcome struct {
		res       agent.Result
		seedCalls int
		seedOK    bool
	}
	outcomes := make([]outcome, len(questions))
	t.Run("questions", func(t *testing.T) {
		for i, q := range questions {
			t.Run(q.ID, func(t *testing.T) {
				t.Parallel()
				o := &oracle{q: q, titles: titles, found: map[string]bool{}}
				m := newModel(t)
				o.scriptAgent(m)
				fake := websearchtest.New(t, func(string) []websearch.Result {
					if q.Category == "out_of_corpus" {
						return []websearch.Result{{Title: "An answer", URL: "https://example.org/a", Snippet: "relevant facts"}}
					}
					return []websearch.Result{{Title: "Unrelated", URL: "https://example.org/u", Snippet: "nothing useful"}}
				})
				web, _ := websearch.New("searxng", fake.URL(), "", nil)
				res, _ := ask(t, m.agent(agent.Config{}, web, nil), q.Question)

				so := &oracle{q: q, titles: titles, found: map[string]bool{}}
				sm := newModel(t)
				so.scriptSeed(sm)
				c := sm.client()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				calls, ok, err := seedRun(ctx, c, graphrag.NewRetriever(demoStore(t), c), q.Question, 6)
				if err != nil {
					t.Fatalf("seed: %v", err)
				}
				outcomes[i] = outcome{res: res, seedCalls: calls, seedOK: ok}
			})
		}
	})
	byCat := map[string]*tally{}
	var order []string
	for i, q := range questions {
		res, out := outcomes[i].res, outcomes[i]
		tl := byCat[q.Category]
		if tl == nil {
			tl = &tally{}
			byCat[q.Category] = tl
			order = append(order, q.Category)
		}
		tl.n++
		tl.calls += res.Usage.Calls
		tl.rounds += res.Usage.Rounds
		tl.seedCalls += out.seedCalls
		if res.Useful && !res.NotFound {
			tl.answered++
		}
		if out.seedOK {
			tl.seedAnswered++
		}
		if res.NotFound {
			tl.notFound++
		}
		if res.UsedWeb {
			tl.usedWeb++
		}
		t.Logf("%-4s %-14s agent %2d calls %2d rounds useful=%-5v notfound=%-5v web=%-5v | seed %2d calls answered=%v",
			q.ID, q.Category, res.Usage.Calls, res.Usage.Rounds, res.Useful, res.NotFound, res.UsedWeb, out.seedCalls, out.seedOK)
	}
	t.Logf("| category | n | agent calls/q | agent rounds/q | seed calls/q = rounds/q | agent useful | seed useful | agent refusals | agent web |")
	t.Logf("|---|---|---|---|---|---|---|---|---|")
	for _, cat := range order {
		tl := byCat[cat]
		f := func(x int) float64 { return float64(x) / float64(tl.n) }
		t.Logf("| %s | %d | %.1f | %.1f | %.1f | %d/%d | %d/%d | %d | %d |", cat, tl.n, f(tl.calls), f(tl.rounds),
			f(tl.seedCalls), tl.answered, tl.n, tl.seedAnswered, tl.n, tl.notFound, tl.usedWeb)
		if tl.rounds > tl.seedCalls {
			t.Errorf("%s: the agent takes %d rounds, the per-document baseline %d", cat, tl.rounds, tl.seedCalls)
		}
	}
	if f := byCat["factual"]; f != nil && f.rounds != 4*f.n {
		t.Errorf("factual questions took %d rounds for %d questions, want 4 each", f.rounds, f.n)
	}
}
