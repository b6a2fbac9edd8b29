package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
)

// hosted stands for a hosted API: the client under load gets the limits such an endpoint gets by default
// (llm.DefaultConcurrency), although the scripted model it talks to is on 127.0.0.1.
const hosted = "https://api.example.com/v1"

// settings of a load run, from HOPWISE_LOAD_CLIENTS, HOPWISE_LOAD_QUESTIONS (per client),
// HOPWISE_LOAD_LATENCY (per chat call), HOPWISE_LOAD_MAX (the whole run) and HOPWISE_LOAD_MODEL_CALLS
// (chat calls in flight at most; default: a hosted endpoint's). With HOPWISE_LOAD_STRICT=1 the run also
// fails above the targets of issue 19 (p95 at most 1.2x the ideal; short questions among long ones at
// most 1.3x their own).
type settings struct {
	clients, questions int
	latency, limit     time.Duration
	modelCalls         int
	strict             bool
}

func loadSettings(t *testing.T) settings {
	s := settings{clients: 8, questions: 5, latency: 50 * time.Millisecond, limit: 60 * time.Second,
		modelCalls: llm.DefaultConcurrency(hosted), strict: os.Getenv("HOPWISE_LOAD_STRICT") == "1"}
	intVar := func(name string, v *int) {
		if x, err := strconv.Atoi(os.Getenv(name)); err == nil && x > 0 {
			*v = x
		}
	}
	durVar := func(name string, v *time.Duration) {
		if x, err := time.ParseDuration(os.Getenv(name)); err == nil && x > 0 {
			*v = x
		}
	}
	intVar("HOPWISE_LOAD_CLIENTS", &s.clients)
	intVar("HOPWISE_LOAD_QUESTIONS", &s.questions)
	intVar("HOPWISE_LOAD_MODEL_CALLS", &s.modelCalls)
	durVar("HOPWISE_LOAD_LATENCY", &s.latency)
	durVar("HOPWISE_LOAD_MAX", &s.limit)
	return s
}

// TestLoad starts the server over the ingested demo corpus with the scripted reader model answering every
// chat call after a fixed latency, then runs the clients: each asks its questions one after the other,
// each in a new conversation, over SSE. It fails on any error or when the run does not finish in time.
func TestLoad(t *testing.T) {
	if os.Getenv("HOPWISE_LOAD") != "1" {
		t.Skip("the load test runs with HOPWISE_LOAD=1 (make load)")
	}
	s := loadSettings(t)
	set := questions(t)
	srv := startServer(t, s, "../../samples/docs")
	stop := make(chan struct{})
	busiest := srv.busiest(stop)
	results, wall := run(t, srv.base, s, func(int) int { return s.questions }, func(c, q int) string {
		return set[(c*s.questions+q)%len(set)]
	})
	close(stop)
	rep := summarize(results, wall, s)
	t.Logf("load test: %d clients x %d questions, scripted model %v per chat call, %d chat calls in flight at most, "+
		"at most %v\n\n%s%s\n", s.clients, s.questions, s.latency, s.modelCalls, s.limit, rep, busiest())
	failOnErrors(t, results)
	if ratio := p95Ratio(results, s.latency); s.strict && ratio > 1.2 {
		t.Errorf("p95 is %.2f times the ideal, want at most 1.2", ratio)
	}
}

// TestLoadMixed runs long and short questions side by side: half the clients ask the questions whose loop
// takes the most rounds, the other half those that take the fewest (found by asking each question once
// first, with the model answering at once), as many more of them as they are shorter, so that both halves
// ask for as long. The short questions' answers must not wait for the long ones': each group is reported
// with its own ideal.
func TestLoadMixed(t *testing.T) {
	if os.Getenv("HOPWISE_LOAD") != "1" {
		t.Skip("the load test runs with HOPWISE_LOAD=1 (make load)")
	}
	s := loadSettings(t)
	srv := startServer(t, s, "../../samples/docs")
	long, short, times := longAndShort(t, srv, questions(t))
	srv.latency.Store(int64(s.latency))
	stop := make(chan struct{})
	busiest := srv.busiest(stop)
	count := func(c int) int {
		if c%2 == 0 {
			return s.questions
		}
		return s.questions * times
	}
	results, wall := run(t, srv.base, s, count, func(c, q int) string {
		if c%2 == 0 {
			return long[(c/2+q)%len(long)]
		}
		return short[(c/2+q)%len(short)]
	})
	close(stop)
	isShort := map[string]bool{}
	for _, q := range short {
		isShort[q] = true
	}
	var longRes, shortRes []askResult
	for _, r := range results {
		if isShort[r.question] {
			shortRes = append(shortRes, r)
		} else {
			longRes = append(longRes, r)
		}
	}
	half := s
	half.clients = s.clients / 2
	t.Logf("mixed load test: %d clients, half of them asking %d long questions each, half %d short ones; scripted model %v "+
		"per chat call, %d chat calls in flight at most\n\nlong questions (%d):\n\n%s\nshort questions (%d):\n\n%s%s\n",
		s.clients, s.questions, s.questions*times, s.latency, s.modelCalls, len(long), summarize(longRes, wall, half), len(short),
		summarize(shortRes, wall, half), busiest())
	failOnErrors(t, results)
	if ratio := ratioP95(shortRes, s.latency); s.strict && ratio > 1.3 {
		t.Errorf("the short questions' p95 is %.2f times their own ideal, want at most 1.3", ratio)
	}
}

// questions are the demo set's questions.
func questions(t *testing.T) []string {
	set, err := eval.ReadSet(bytes.NewReader(samples.Questions()))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(set))
	for _, it := range set {
		out = append(out, it.Question)
	}
	return out
}

// longAndShort asks every question once, with the model answering at once, and returns the third that took
// the most rounds, the third that took the fewest, and how many times more rounds the long ones take.
func longAndShort(t *testing.T, srv *server, set []string) (long, short []string, times int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv.latency.Store(0)
	rounds := map[string]int{}
	start := time.Now()
	for _, q := range set {
		r := ask(ctx, srv.base, q)
		if r.err != "" {
			t.Fatalf("%q: %s", clip(q), r.err)
		}
		rounds[q] = r.rounds
	}
	byRounds := slices.Clone(set)
	slices.SortStableFunc(byRounds, func(a, b string) int { return rounds[a] - rounds[b] })
	third := len(byRounds) / 3
	short, long = byRounds[:third], byRounds[len(byRounds)-third:]
	sum := func(qs []string) int {
		n := 0
		for _, q := range qs {
			n += rounds[q]
		}
		return max(n, 1)
	}
	times = max(1, (sum(long)+sum(short)/2)/sum(short))
	t.Logf("%d questions one after the other with the model answering at once: %v a question; short questions take "+
		"%d-%d rounds, long ones %d-%d", len(set), (time.Since(start) / time.Duration(len(set))).Round(time.Millisecond),
		rounds[short[0]], rounds[short[len(short)-1]], rounds[long[0]], rounds[long[len(long)-1]])
	return long, short, times
}

// run has each client ask count(client) questions (question(client, n)) one after the other, each in a new
// conversation, within s.limit.
func run(t *testing.T, base string, s settings, count func(client int) int, question func(client, n int) string) ([]askResult, time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), s.limit)
	defer cancel()
	results := make([]askResult, 0, s.clients*s.questions)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for c := range s.clients {
		wg.Go(func() {
			for q := range count(c) {
				r := ask(ctx, base, question(c, q))
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		t.Errorf("the run did not finish within %v", s.limit)
	}
	return results, time.Since(start)
}

func failOnErrors(t *testing.T, results []askResult) {
	for _, r := range results {
		if r.err != "" {
			t.Errorf("%q: %s", clip(r.question), r.err)
		}
	}
}

// server is the app under load: its base URL, its model client and the scripted model's latency per chat
// call.
type server struct {
	base    string
	client  *llm.Client
	latency atomic.Int64 // nanoseconds
}

// busiest samples the client's schedulers every 20ms until stop is closed and returns the most calls in
// flight and waiting it saw, chat and embeddings.
func (srv *server) busiest(stop <-chan struct{}) func() string {
	var chat, embed llm.Slots
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			c, e := srv.client.Slots()
			chat.InFlight, chat.Waiting = max(chat.InFlight, c.InFlight), max(chat.Waiting, c.Waiting)
			embed.InFlight, embed.Waiting = max(embed.InFlight, e.InFlight), max(embed.Waiting, e.Waiting)
			select {
			case <-tick.C:
			case <-stop:
				return
			}
		}
	}()
	return func() string {
		<-done
		return fmt.Sprintf("most chat calls in flight %d, waiting %d; most embeddings requests in flight %d, waiting %d",
			chat.InFlight, chat.Waiting, embed.InFlight, embed.Waiting)
	}
}

// startServer ingests the demo corpus, builds the handlers as `hopwise serve` does, with the model client a
// hosted endpoint gets (s.modelCalls chat calls at once), and serves them on a free port of 127.0.0.1 until
// the test ends.
func startServer(t *testing.T, s settings, corpus string) *server {
	srv := &server{}
	srv.latency.Store(int64(s.latency))
	model := llmtest.New(t)
	model.Handle(graphragtest.Extraction)
	model.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		rp, ok := evaltest.Reader(req)
		if ok {
			rp.Delay = time.Duration(srv.latency.Load())
		}
		return rp, ok
	})
	client := llm.New(llm.Config{
		BaseURL: model.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		Timeout: 20 * time.Second, StreamIdleTimeout: 20 * time.Second,
		MaxConcurrency: s.modelCalls, EmbedConcurrency: llm.DefaultEmbedConcurrency(hosted),
	}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	in := graphrag.NewIngester(store, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 2}, slog.New(slog.DiscardHandler))
	if err := graphragtest.IngestDir(ctx, in, store, corpus); err != nil {
		t.Fatal(err)
	}
	ag := agent.New(client, graphrag.NewRetriever(store, client), nil, nil, agent.Config{}, nil)
	h := handlers.New(handlers.Deps{
		Logger: slog.New(slog.DiscardHandler), Store: store, Ingester: in, Chat: agent.NewChat(ag, store),
		Status: func(context.Context) handlers.Status { return handlers.Status{} },
		// every client comes from 127.0.0.1: the per-client rate limit would stop the run, not the server
		Limits: handlers.Limits{AskPerMinute: 1 << 20, MaxRunning: s.clients},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := handlers.NewHTTPServer(ln.Addr().String(), h)
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	srv.base, srv.client = "http://"+ln.Addr().String(), client
	return srv
}

// askResult is one question as a client saw it.
type askResult struct {
	question   string
	latency    time.Duration // request sent to "done" received
	firstToken time.Duration // to the first token event (0: none)
	rounds     int
	calls      int
	err        string
}

// ask posts one question to /api/ask with Accept: text/event-stream and reads the events until "done".
func ask(ctx context.Context, base, question string) askResult {
	r := askResult{question: question}
	body, _ := json.Marshal(map[string]string{"question": question})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/ask", strings.NewReader(string(body)))
	if err != nil {
		r.err = err.Error()
		return r
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		r.err = "HTTP " + resp.Status
		return r
	}
	var event string
	var data strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(line, "data: "))
		case line == "":
			if event == string(agent.EventToken) && r.firstToken == 0 {
				r.firstToken = time.Since(start)
			}
			if event == "done" {
				r.latency = time.Since(start)
				var done struct {
					Status string
					Result agent.Result
				}
				if err := json.Unmarshal([]byte(data.String()), &done); err != nil {
					r.err = "done event: " + err.Error()
				} else if done.Status != agent.TurnDone {
					r.err = "turn " + done.Status
				}
				r.rounds, r.calls = done.Result.Usage.Rounds, done.Result.Usage.Calls
				return r
			}
			event = ""
			data.Reset()
		}
	}
	r.err = fmt.Sprintf("the stream ended without done (%v)", sc.Err())
	return r
}

// measures are a run's answered questions: latencies, times to the first token, ideals (rounds x model
// latency) and each question's latency over its ideal (in seconds per second); errors counts the others.
type measures struct {
	lat, ttft, ideal, ratio []time.Duration
	errs, rounds, calls     int
}

func measure(results []askResult, latency time.Duration) measures {
	var m measures
	for _, r := range results {
		if r.err != "" {
			m.errs++
			continue
		}
		m.lat = append(m.lat, r.latency)
		if r.firstToken > 0 {
			m.ttft = append(m.ttft, r.firstToken)
		}
		id := time.Duration(r.rounds) * latency
		m.ideal = append(m.ideal, id)
		if id > 0 {
			m.ratio = append(m.ratio, time.Duration(float64(time.Second)*float64(r.latency)/float64(id)))
		}
		m.rounds += r.rounds
		m.calls += r.calls
	}
	return m
}

// p95Ratio is the p95 latency over the p95 ideal.
func p95Ratio(results []askResult, latency time.Duration) float64 {
	m := measure(results, latency)
	return float64(pctD(m.lat, 95)) / float64(max(pctD(m.ideal, 95), 1))
}

// ratioP95 is the p95 of each question's latency over its own ideal.
func ratioP95(results []askResult, latency time.Duration) float64 {
	return pctD(measure(results, latency).ratio, 95).Seconds()
}

// summarize writes the run's report as a markdown table.
func summarize(results []askResult, wall time.Duration, s settings) string {
	m := measure(results, s.latency)
	ok := len(m.lat)
	var b strings.Builder
	b.WriteString("| clients | questions | errors | throughput | p50 | p95 | p99 | first token p50 | rounds/q | calls/q | ideal p95 | p95 / ideal p95 | per-question ratio p50 / p95 |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	div := func(a, n int) float64 { return float64(a) / float64(max(n, 1)) }
	fmt.Fprintf(&b, "| %d | %d | %d | %.2f q/s | %s | %s | %s | %s | %.1f | %.1f | %s | %.2f | %.2f / %.2f |\n",
		s.clients, len(results), m.errs, float64(ok)/wall.Seconds(), pct(m.lat, 50), pct(m.lat, 95), pct(m.lat, 99), pct(m.ttft, 50),
		div(m.rounds, ok), div(m.calls, ok), pct(m.ideal, 95), p95Ratio(results, s.latency),
		pctD(m.ratio, 50).Seconds(), pctD(m.ratio, 95).Seconds())
	fmt.Fprintf(&b, "\nwall time %v for %d answered questions\n", wall.Round(time.Millisecond), ok)
	return b.String()
}

// pctD is the p-th percentile (nearest rank) of ds, 0 when empty.
func pctD(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s) + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func pct(ds []time.Duration, p int) string { return pctD(ds, p).Round(time.Millisecond).String() }

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
