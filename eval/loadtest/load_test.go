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
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
)

// settings of a load run, from HOPWISE_LOAD_CLIENTS, HOPWISE_LOAD_QUESTIONS (per client),
// HOPWISE_LOAD_LATENCY (per chat call) and HOPWISE_LOAD_MAX (the whole run).
type settings struct {
	clients, questions int
	latency, limit     time.Duration
}

func loadSettings(t *testing.T) settings {
	s := settings{clients: 8, questions: 5, latency: 50 * time.Millisecond, limit: 60 * time.Second}
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
	corpus := "../../samples/docs"
	set, err := eval.ReadSet(bytes.NewReader(samples.Questions()))
	if err != nil {
		t.Fatal(err)
	}
	base := startServer(t, s.latency, corpus, s.clients)

	ctx, cancel := context.WithTimeout(context.Background(), s.limit)
	defer cancel()
	results := make([]askResult, 0, s.clients*s.questions)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for c := range s.clients {
		wg.Go(func() {
			for q := range s.questions {
				question := set[(c*s.questions+q)%len(set)].Question
				r := ask(ctx, base, question)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	rep := summarize(results, wall, s)
	t.Logf("load test: %d clients x %d questions, scripted model %v per chat call, at most %v\n\n%s", s.clients, s.questions,
		s.latency, s.limit, rep)
	for _, r := range results {
		if r.err != "" {
			t.Errorf("%q: %s", clip(r.question), r.err)
		}
	}
	if ctx.Err() != nil {
		t.Errorf("the run did not finish within %v", s.limit)
	}
}

// startServer ingests the demo corpus, builds the handlers as `hopwise serve` does and serves them on a
// free port of 127.0.0.1 until the test ends; it returns the base URL.
func startServer(t *testing.T, latency time.Duration, corpus string, clients int) string {
	model := llmtest.New(t)
	model.Handle(graphragtest.Extraction)
	model.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		rp, ok := evaltest.Reader(req)
		if ok {
			rp.Delay = latency
		}
		return rp, ok
	})
	client := evaltest.Client(model)
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
		Limits: handlers.Limits{AskPerMinute: 1 << 20, MaxRunning: clients},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := handlers.NewHTTPServer(ln.Addr().String(), h)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
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

// summarize writes the run's report as a markdown table.
func summarize(results []askResult, wall time.Duration, s settings) string {
	var lat, ttft, ideal, ratio []time.Duration
	var errs, rounds, calls int
	for _, r := range results {
		if r.err != "" {
			errs++
			continue
		}
		lat = append(lat, r.latency)
		if r.firstToken > 0 {
			ttft = append(ttft, r.firstToken)
		}
		id := time.Duration(r.rounds) * s.latency
		ideal = append(ideal, id)
		if id > 0 {
			ratio = append(ratio, time.Duration(float64(time.Second)*float64(r.latency)/float64(id)))
		}
		rounds += r.rounds
		calls += r.calls
	}
	ok := len(lat)
	var b strings.Builder
	b.WriteString("| clients | questions | errors | throughput | p50 | p95 | p99 | first token p50 | rounds/q | calls/q | ideal p95 | p95 / ideal p95 | per-question ratio p50 / p95 |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	div := func(a, n int) float64 { return float64(a) / float64(max(n, 1)) }
	fmt.Fprintf(&b, "| %d | %d | %d | %.2f q/s | %s | %s | %s | %s | %.1f | %.1f | %s | %.2f | %.2f / %.2f |\n",
		s.clients, len(results), errs, float64(ok)/wall.Seconds(), pct(lat, 50), pct(lat, 95), pct(lat, 99), pct(ttft, 50),
		div(rounds, ok), div(calls, ok), pct(ideal, 95), float64(pctD(lat, 95))/float64(max(pctD(ideal, 95), 1)),
		pctD(ratio, 50).Seconds(), pctD(ratio, 95).Seconds())
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
