package agent_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/websearch"
	"github.com/hopwise/hopwise/websearch/websearchtest"
)

func TestQuestionWithoutRetrievalEndsAfterTheDirectAnswer(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(false) })
	m.on(taskDirect, func(c call) llmtest.Reply { return say("12 times 7 is 84.") })
	res, rec := ask(t, m.agent(agent.Config{}, nil, nil), "What is 12 times 7?")

	if got, want := path(res.Trace), []string{agent.NodeDecide, agent.NodeDirect}; !equal(got, want) {
		t.Fatalf("path = %v, want %v", got, want)
	}
	if !res.Direct || !strings.Contains(res.Answer, "84") || !strings.Contains(res.Answer, "general knowledge") {
		t.Fatalf("result = %+v: want a direct answer that says where it comes from", res)
	}
	if len(res.Citations) != 0 || res.Grounded != "" {
		t.Errorf("direct answer with citations %v grounded %q", res.Citations, res.Grounded)
	}
	if res.Usage.Calls != 2 || res.Usage.Rounds != 2 {
		t.Errorf("usage = %+v, want 2 calls in 2 rounds", res.Usage)
	}
	if len(of(res.Trace, agent.EventDocuments)) != 0 || m.count(taskGrade) != 0 {
		t.Errorf("the speculative retrieval was not discarded")
	}
	if strings.TrimSpace(rec.streamed()) != res.Answer {
		t.Errorf("streamed %q, answer %q", rec.streamed(), res.Answer)
	}
}

const populationQuestion = "What is the population of Munich?"

// scriptOutOfCorpus is a model for a question the documents cannot answer: nothing local is useful; a
// web page that states the population is.
func scriptOutOfCorpus(m *model, subQuestions ...[]string) {
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true, "Munich number of inhabitants") })
	m.on(taskGrade, func(c call) llmtest.Reply {
		return grades(c, "The documents describe Munich but give no population figure.", "the population of Munich",
			func(it item) (bool, string) {
				if strings.HasPrefix(it.From, "web page") && strings.Contains(it.Text, "inhabitants") {
					return true, "states the population"
				}
				return false, "no population figure"
			})
	})
	m.on(taskTransform, func(c call) llmtest.Reply {
		if c.N <= len(subQuestions) {
			return queries(subQuestions[c.N-1]...)
		}
		return queries()
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		n := c.find("inhabitants")
		return say(fmt.Sprintf("Munich has about 1.5 million inhabitants [%d].", n))
	})
	m.on(taskAudit, func(c call) llmtest.Reply { return audit("fully", true, "") })
}

func populationPages(q string) []websearch.Result {
	return []websearch.Result{
		{Title: "Munich - facts", URL: "https://example.org/munich", Snippet: "Munich has about 1.5 million inhabitants."},
		{Title: "Beer gardens", URL: "https://example.org/beer", Snippet: "Where to drink beer."},
	}
}

func TestOutOfCorpusQuestionUsesTheWebWhenEnabled(t *testing.T) {
	m := newModel(t)
	scriptOutOfCorpus(m, []string{"Munich census population"})
	fake := websearchtest.New(t, populationPages)
	web, err := websearch.New("searxng", fake.URL(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := ask(t, m.agent(agent.Config{}, web, nil), populationQuestion)

	// The web search runs beside transform_query: either may finish first.
	want := []string{
		agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade,
		agent.NodeTransform, agent.NodeWeb, agent.NodeRetrieve, agent.NodeGrade, agent.NodeGenerate, agent.NodeAudit,
	}
	got := path(res.Trace)
	if len(got) > 4 && got[3] == agent.NodeWeb {
		got[3], got[4] = got[4], got[3]
	}
	if !equal(got, want) {
		t.Fatalf("path = %v\nwant   %v", path(res.Trace), want)
	}
	if !res.UsedWeb || res.NotFound || !strings.Contains(res.Answer, "1.5 million") {
		t.Fatalf("result = %+v", res)
	}
	if len(res.Citations) != 1 || res.Citations[0].Kind != agent.KindWeb || res.Citations[0].URL != "https://example.org/munich" {
		t.Errorf("citations = %+v, want the web page", res.Citations)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].Query != populationQuestion {
		t.Fatalf("the search provider received %+v, want exactly the question", reqs)
	}
	webEvents := of(res.Trace, agent.EventWeb)
	if len(webEvents) != 1 || len(webEvents[0].Docs) != 2 || !webEvents[0].Docs[0].Web {
		t.Errorf("web events = %+v", webEvents)
	}
	// The web results were graded like documents, in the same round as the local sub-question's results
	// (two concurrent batches: six passages, then the two pages).
	if m.count(taskGrade) != 3 || res.Usage.Rounds != 6 {
		t.Errorf("%d grading calls, usage %+v: want 3 grading calls in 6 rounds", m.count(taskGrade), res.Usage)
	}
}

func TestOutOfCorpusQuestionWithoutWebSaysTheDocumentsDoNotCoverIt(t *testing.T) {
	tests := []struct {
		name string
		web  bool // a provider is configured but the technique is off
	}{
		{name: "no provider"},
		{name: "provider configured, fallback off", web: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t)
			scriptOutOfCorpus(m, []string{"Munich census population"})
			fake := websearchtest.New(t, populationPages)
			var web websearch.Searcher
			cfg := agent.Config{}
			if tt.web {
				web, _ = websearch.New("tavily", fake.URL(), "key", nil)
				cfg.Techniques = agent.DefaultTechniques()
				cfg.Techniques.WebFallback = false
			}
			res, rec := ask(t, m.agent(cfg, web, nil), populationQuestion)

			want := []string{agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade,
				agent.NodeTransform, agent.NodeRetrieve, agent.NodeGrade, agent.NodeTransform, agent.NodeNotFound}
			if got := path(res.Trace); !equal(got, want) {
				t.Fatalf("path = %v\nwant   %v", got, want)
			}
			if !res.NotFound || res.UsedWeb || !strings.Contains(res.Answer, "do not cover") ||
				!strings.Contains(res.Answer, "the population of Munich") {
				t.Fatalf("result = %+v: want an honest refusal that names what is missing", res)
			}
			if m.count(taskGenerate) != 0 || len(fake.Requests()) != 0 {
				t.Errorf("%d generations and %d web searches, want none", m.count(taskGenerate), len(fake.Requests()))
			}
			if strings.TrimSpace(rec.streamed()) != res.Answer {
				t.Errorf("streamed %q, want the refusal", rec.streamed())
			}
		})
	}
}

func TestUnanswerableQuestionGetsARefusal(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true, "LH2473 gate") })
	m.on(taskHyDE, func(c call) llmtest.Reply { return say("Flight LH2473 departed from gate G27.") })
	m.on(taskGrade, func(c call) llmtest.Reply {
		return grades(c, "No document records gates of individual flights.", "the gate of flight LH2473 last Tuesday",
			func(item) (bool, string) { return false, "says nothing about flight LH2473" })
	})
	m.on(taskTransform, func(c call) llmtest.Reply { return queries() })
	cfg := agent.Config{Techniques: agent.DefaultTechniques()}
	cfg.Techniques.HyDE = true
	res, _ := ask(t, m.agent(cfg, nil, nil), "What was the gate number of my flight LH2473 last Tuesday?")

	want := []string{agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade, agent.NodeTransform, agent.NodeNotFound}
	if got := path(res.Trace); !equal(got, want) {
		t.Fatalf("path = %v\nwant   %v", got, want)
	}
	if !res.NotFound || strings.Contains(res.Answer, "G27") || !strings.Contains(res.Answer, "will not guess") ||
		!strings.Contains(res.Answer, "gate of flight LH2473") {
		t.Fatalf("answer = %q: want a refusal naming what is missing", res.Answer)
	}
	if m.count(taskGenerate) != 0 || m.count(taskHyDE) != 0 {
		t.Errorf("%d generations and %d HyDE calls: no guess, and no hypothetical passage for a flight number",
			m.count(taskGenerate), m.count(taskHyDE))
	}
}

func TestHyDE(t *testing.T) {
	tests := []struct {
		question string
		hyde     bool
	}{
		{question: "What does policy TRV-117 allow for long flights?"},
		{question: "Within how many days must expenses be submitted under FIN-EXP-2024-07?"},
		{question: "How much EU261 compensation is due for a flight of up to 1,500 km?"},
		{question: "Who founded Nexa AI?", hyde: true},
		{question: "Which S-Bahn lines connect Munich Airport with the central station?", hyde: true},
	}
	for _, tt := range tests {
		t.Run(tt.question, func(t *testing.T) {
			m := newModel(t)
			m.on(taskDecide, func(c call) llmtest.Reply { return decide(true) })
			m.on(taskHyDE, func(c call) llmtest.Reply { return say("hypothetical zebra passage") })
			m.on(taskGrade, func(c call) llmtest.Reply {
				return grades(c, "", "", func(item) (bool, string) { return true, "ok" })
			})
			m.on(taskGenerate, func(c call) llmtest.Reply { return say("An answer [1].") })
			m.on(taskAudit, func(c call) llmtest.Reply { return audit("fully", true, "") })
			cfg := agent.Config{Techniques: agent.DefaultTechniques()}
			cfg.Techniques.HyDE = true
			res, _ := ask(t, m.agent(cfg, nil, nil), tt.question)
			embedded := false
			for _, r := range m.srv.Requests() {
				if r.IsEmbed() && r.Contains("hypothetical zebra passage") {
					embedded = true
				}
			}
			if got := m.count(taskHyDE) == 1 && embedded; got != tt.hyde {
				t.Errorf("HyDE calls %d, passage embedded %v; want HyDE %v", m.count(taskHyDE), embedded, tt.hyde)
			}
			// HyDE runs beside the decision: it adds a call, never a round.
			if res.Usage.Rounds != 4 {
				t.Errorf("usage = %+v, want 4 rounds", res.Usage)
			}
		})
	}
}

// scriptNeverApproves is a model that keeps whatever it reads, always finds claims unsupported and always
// has another query.
func scriptNeverApproves(m *model, delay time.Duration) {
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true, "Nexa AI offices") })
	m.on(taskGrade, func(c call) llmtest.Reply {
		return grades(c, "More is needed.", "everything", func(item) (bool, string) { return true, "might help" })
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		return llmtest.Reply{Content: fmt.Sprintf("Draft %d: Nexa AI has offices in Munich [1] and on the Moon.", c.N), Delay: delay}
	})
	m.on(taskRevise, func(c call) llmtest.Reply {
		return llmtest.Reply{Content: fmt.Sprintf("Revision %d: Nexa AI has an office in Munich [1].", c.N), Delay: delay}
	})
	m.on(taskAudit, func(c call) llmtest.Reply {
		r := audit("partially", false, "Incomplete.", "an office on the Moon")
		r.Delay = delay
		return r
	})
	m.on(taskTransform, func(c call) llmtest.Reply {
		r := queries(fmt.Sprintf("Nexa AI location %d", c.N), fmt.Sprintf("Nexa AI site %d", c.N))
		r.Delay = delay
		return r
	})
}

func TestModelThatNeverApprovesEndsWithinEveryCap(t *testing.T) {
	tests := []struct {
		name  string
		cfg   agent.Config
		delay time.Duration
		check func(t *testing.T, res agent.Result, m *model)
	}{
		{name: "loops and revisions", cfg: agent.Config{MaxLoops: 3, MaxRevisions: 2, MaxLLMCalls: 40},
			check: func(t *testing.T, res agent.Result, m *model) {
				if g := m.count(taskGrade); g != 3 {
					t.Errorf("%d grading calls, want one per pass, 3 passes", g)
				}
				if r := m.count(taskRevise); r != 2 {
					t.Errorf("%d revisions, want 2", r)
				}
				if res.Answer != "Revision 2: Nexa AI has an office in Munich [1]." || res.Grounded != agent.GroundedPartially {
					t.Errorf("answer %q grounded %q: want the last revision, the best supported answer", res.Answer, res.Grounded)
				}
				if res.Usage.Calls != 16 || res.Usage.Rounds != 16 {
					t.Errorf("usage = %+v, want 16 calls in 16 rounds", res.Usage)
				}
			}},
		{name: "model calls", cfg: agent.Config{MaxLoops: 10, MaxRevisions: 10, MaxLLMCalls: 9},
			check: func(t *testing.T, res agent.Result, m *model) {
				if res.Usage.Calls > 9 {
					t.Errorf("usage = %+v, want at most 9 calls", res.Usage)
				}
				if !strings.Contains(res.Answer, "office in Munich") {
					t.Errorf("answer %q: want a revised, supported answer", res.Answer)
				}
			}},
		{name: "tokens", cfg: agent.Config{MaxLoops: 10, MaxRevisions: 10, MaxLLMCalls: 100, MaxTokens: 6000},
			check: func(t *testing.T, res agent.Result, m *model) {
				if total := res.Usage.PromptTokens + res.Usage.CompletionTokens; total > 6000*5/4 {
					t.Errorf("usage = %+v: the token cap did not stop the loop", res.Usage)
				}
				if strings.Contains(res.Answer, "Moon") {
					t.Errorf("answer %q: want budget kept for revising it to its supported part", res.Answer)
				}
			}},
		{name: "wall time", cfg: agent.Config{MaxLoops: 10, MaxRevisions: 10, MaxLLMCalls: 100, MaxRunTime: 400 * time.Millisecond},
			delay: 60 * time.Millisecond,
			check: func(t *testing.T, res agent.Result, m *model) {
				if res.Usage.Elapsed > 1500*time.Millisecond {
					t.Errorf("run took %s, want about 400ms", res.Usage.Elapsed)
				}
				if res.Answer == "" || strings.Contains(res.Answer, "Moon") && res.Grounded != agent.GroundedPartially {
					t.Errorf("answer %q grounded %q: want an answer, labelled when partly unsupported", res.Answer, res.Grounded)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t)
			scriptNeverApproves(m, tt.delay)
			res, _ := ask(t, m.agent(tt.cfg, nil, nil), "Where does Nexa AI have offices?")
			tt.check(t, res, m)
			t.Logf("usage %+v path %v", res.Usage, path(res.Trace))
			if res.NotFound && m.count(taskGenerate) > 0 && res.Grounded == agent.GroundedPartially {
				t.Errorf("a partially supported answer was thrown away")
			}
		})
	}
}

func TestUnsupportedClaim(t *testing.T) {
	const question = "How many paid days off does POL-HR-0042 grant per year?"
	script := func(m *model) {
		m.on(taskDecide, func(c call) llmtest.Reply { return decide(true) })
		m.on(taskGrade, func(c call) llmtest.Reply {
			return grades(c, "POL-HR-0042 sets the days off.", "", func(it item) (bool, string) {
				return strings.Contains(it.Text, "24 paid days off"), "the policy"
			})
		})
		m.on(taskGenerate, func(c call) llmtest.Reply {
			return say(fmt.Sprintf("POL-HR-0042 grants 24 paid days off per year [%d], and 30 days after five years.", c.find("24 paid days off")))
		})
		m.on(taskAudit, func(c call) llmtest.Reply {
			if strings.Contains(c.LastUser(), "after five years") {
				return audit("partially", true, "", "30 days after five years")
			}
			return audit("fully", true, "")
		})
		m.on(taskRevise, func(c call) llmtest.Reply {
			return say(fmt.Sprintf("POL-HR-0042 grants 24 paid days off per year [%d].", c.find("24 paid days off")))
		})
		m.on(taskTransform, func(c call) llmtest.Reply {
			if c.N == 1 {
				return queries("POL-HR-0042 seniority extra days off")
			}
			return queries()
		})
	}
	tests := []struct {
		name     string
		cfg      agent.Config
		wantPath []string
	}{
		{name: "sent back for more retrieval", cfg: agent.Config{MaxLoops: 3},
			wantPath: []string{agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade, agent.NodeGenerate, agent.NodeAudit,
				agent.NodeTransform, agent.NodeRetrieve, agent.NodeGrade, agent.NodeTransform, agent.NodeRevise, agent.NodeAudit}},
		{name: "revised when no pass is left", cfg: agent.Config{MaxLoops: 1},
			wantPath: []string{agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade, agent.NodeGenerate, agent.NodeAudit,
				agent.NodeRevise, agent.NodeAudit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t)
			script(m)
			res, rec := ask(t, m.agent(tt.cfg, nil, nil), question)
			if got := path(res.Trace); !equal(got, tt.wantPath) {
				t.Fatalf("path = %v\nwant   %v", got, tt.wantPath)
			}
			if strings.Contains(res.Answer, "five years") || !strings.Contains(res.Answer, "24 paid days") ||
				res.Grounded != agent.GroundedFully {
				t.Fatalf("answer %q grounded %q: want the unsupported claim gone", res.Answer, res.Grounded)
			}
			if tt.cfg.MaxLoops > 1 {
				tp := m.prompts(taskTransform)
				if len(tp) == 0 || !strings.Contains(tp[0], "30 days after five years") {
					t.Errorf("transform prompt does not name the unsupported claim: %q", tp)
				}
			}
			rp := m.prompts(taskRevise)
			if len(rp) != 1 || !strings.Contains(rp[0], "- 30 days after five years") {
				t.Errorf("revise prompt does not list the unsupported claim: %q", rp)
			}
			if len(of(rec.all(), agent.EventAnswerReset)) == 0 || strings.TrimSpace(rec.streamed()) != res.Answer {
				t.Errorf("the revision did not restart the streamed text: %q", rec.streamed())
			}
		})
	}
}

func TestCancelStopsInFlightModelCalls(t *testing.T) {
	m := newModel(t)
	proxy := newWatchingProxy(t, m.srv.URL())
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true, "EU261 amounts", "Munich distances") })
	gradeStarted := make(chan struct{}, 8)
	m.on(taskGrade, func(c call) llmtest.Reply {
		gradeStarted <- struct{}{}
		return llmtest.Reply{Content: `{}`, Delay: 30 * time.Second}
	})
	a := m.agentVia(proxy.url(), agent.Config{K: 12})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.Run(ctx, agent.Input{Question: delhiQuestion}, nil)
		done <- err
	}()
	select {
	case <-gradeStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("grading never started")
	}
	time.Sleep(50 * time.Millisecond) // let every batch reach the server
	inFlight := proxy.active()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if inFlight < 2 {
		t.Fatalf("%d calls in flight at cancel, want the grading batches running concurrently", inFlight)
	}
	deadline := time.Now().Add(2 * time.Second)
	for proxy.active() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if proxy.active() != 0 || proxy.abandoned() < inFlight {
		t.Fatalf("after cancel: %d calls still active, %d abandoned by the client, want 0 and %d",
			proxy.active(), proxy.abandoned(), inFlight)
	}
}

func TestStalledStreamEndsWithAnErrorEvent(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true) })
	m.on(taskGrade, func(c call) llmtest.Reply {
		return grades(c, "", "", func(item) (bool, string) { return true, "ok" })
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		return llmtest.Reply{Content: "Nexa AI was founded in 2019 [1].", StallAfter: 2}
	})
	c := llm.New(llm.Config{BaseURL: m.srv.URL(), APIKey: "k", Model: "test-model", MaxRetries: -1,
		StreamIdleTimeout: 200 * time.Millisecond}, nil)
	a := agent.New(c, graphrag.NewRetriever(demoStore(t), c), nil, nil, agent.Config{}, nil)
	rec := &recorder{}
	start := time.Now()
	res, err := a.Run(context.Background(), agent.Input{Question: "When was Nexa AI founded?"}, rec.emit)
	if !errors.Is(err, llm.ErrStreamStalled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %s, want a stalled stream error soon", err, time.Since(start))
	}
	errs := of(rec.all(), agent.EventError)
	if len(errs) == 0 || !strings.Contains(errs[len(errs)-1].Error, "stalled") || res.Trace[len(res.Trace)-1].Type != agent.EventError {
		t.Errorf("error events %+v: want the stall reported", errs)
	}
}

func TestEmptyQuestion(t *testing.T) {
	a := agent.New(nil, nil, nil, nil, agent.Config{}, nil)
	if _, err := a.Run(context.Background(), agent.Input{Question: "  "}, nil); !errors.Is(err, agent.ErrEmptyQuestion) {
		t.Errorf("Run: err = %v", err)
	}
	if _, err := a.Naive(context.Background(), agent.Input{}, nil); !errors.Is(err, agent.ErrEmptyQuestion) {
		t.Errorf("Naive: err = %v", err)
	}
}
