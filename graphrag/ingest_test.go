package graphrag_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// demoDir holds the sample documents (package samples) in this repository.
const demoDir = "../samples/docs"

type testEnv struct {
	t         testing.TB
	model     *llmtest.Server
	store     graphrag.Store
	ingester  *graphrag.Ingester
	retriever *graphrag.Retriever
	client    *llm.Client // the model client the ingester uses, for another ingester on the same store
	logger    *slog.Logger
}

// newEnv wires a real SQLite store, the real model client against a scripted model that extracts with
// graphragtest.Extraction, and a running Ingester.
func newEnv(t testing.TB, handlers ...func(llmtest.Request) (llmtest.Reply, bool)) *testEnv {
	t.Helper()
	return newEnvWith(t, graphrag.IngestOptions{Workers: 2}, handlers...)
}

// newEnvWith is newEnv with ingest options.
func newEnvWith(t testing.TB, opt graphrag.IngestOptions, handlers ...func(llmtest.Request) (llmtest.Reply, bool)) *testEnv {
	t.Helper()
	env := newIdleEnv(t, opt, handlers...)
	env.run()
	return env
}

// newIdleEnv is newEnvWith before its Ingester runs: jobs submitted wait in its queue until run.
func newIdleEnv(t testing.TB, opt graphrag.IngestOptions, handlers ...func(llmtest.Request) (llmtest.Reply, bool)) *testEnv {
	t.Helper()
	store, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hopwise.db"),
		sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return newIdleEnvOn(t, store, opt, handlers...)
}

// newEnvOn is newEnvWith on a given store (64 dimensions, embedding model test-embed), for the tests
// that run on both stores (reindexStores).
func newEnvOn(t testing.TB, store graphrag.Store, opt graphrag.IngestOptions, handlers ...func(llmtest.Request) (llmtest.Reply, bool)) *testEnv {
	t.Helper()
	env := newIdleEnvOn(t, store, opt, handlers...)
	env.run()
	return env
}

// newIdleEnvOn is newIdleEnv on a given store.
func newIdleEnvOn(t testing.TB, store graphrag.Store, opt graphrag.IngestOptions, handlers ...func(llmtest.Request) (llmtest.Reply, bool)) *testEnv {
	t.Helper()
	model := llmtest.New(t)
	for _, h := range handlers {
		model.Handle(h)
	}
	model.Handle(graphragtest.Extraction)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	client := llm.New(llm.Config{BaseURL: model.URL(), Model: "test", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 10 * time.Second}, logger)
	in := graphrag.NewIngester(store, client, graphrag.NewLLMExtractor(client), opt, logger)
	return &testEnv{t: t, model: model, store: store, ingester: in, retriever: graphrag.NewRetriever(store, client),
		client: client, logger: logger}
}

// run starts the Ingester until the test ends.
func (e *testEnv) run() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.ingester.Run(ctx) }()
	e.t.Cleanup(func() { cancel(); wg.Wait() })
}

// ingest submits files (name -> content) and waits until each is done or failed; it returns the final
// progress per name.
func (e *testEnv) ingest(files map[string]string) map[string]graphrag.Progress {
	e.t.Helper()
	progress, stop := e.ingester.Subscribe()
	defer stop()
	ctx := context.Background()
	waiting := map[string]string{}
	final := map[string]graphrag.Progress{}
	for name, content := range files {
		doc, dup, err := e.ingester.Submit(ctx, name, strings.NewReader(content))
		if err != nil {
			e.t.Fatalf("submit %s: %v", name, err)
		}
		if dup {
			final[name] = graphrag.Progress{DocID: doc.ID, Status: doc.Status, Duplicate: true}
			continue
		}
		waiting[doc.ID] = name
	}
	timeout := time.After(30 * time.Second)
	// The bus drops a subscriber's oldest snapshots when it falls 256 behind (a hundred uploads submitted
	// before this loop reads), so the store is asked too, now and then, for what the events may have lost.
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for len(waiting) > 0 {
		select {
		case p := <-progress:
			if name, ok := waiting[p.DocID]; ok && p.Status.Finished() {
				final[name] = p
				delete(waiting, p.DocID)
			}
		case <-poll.C:
			for id, name := range waiting {
				if d, err := e.store.Document(ctx, id); err == nil && d.Status.Finished() {
					final[name] = graphrag.Progress{DocID: id, Status: d.Status, Error: d.Error}
					delete(waiting, id)
				}
			}
		case <-timeout:
			e.t.Fatalf("ingest did not finish: %v still waiting", waiting)
		}
	}
	return final
}

func demoFiles(t *testing.T, names ...string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(demoDir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if len(names) > 0 && !slices.Contains(names, e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(demoDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(b)
	}
	return files
}

func (e *testEnv) stats() graphrag.Stats {
	e.t.Helper()
	s, err := e.store.Stats(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func TestIngestDemoTwiceChangesNothing(t *testing.T) {
	env := newEnv(t)
	files := demoFiles(t)
	for name, p := range env.ingest(files) {
		if p.Status != graphrag.StatusDone {
			t.Fatalf("%s: %s %s", name, p.Status, p.Error)
		}
	}
	first := env.stats()
	if first.Documents != len(files) || first.Chunks == 0 || first.Embedded != first.Chunks || first.Entities == 0 || first.Relations == 0 {
		t.Fatalf("after first ingest: %+v", first)
	}
	calls := env.model.ChatCalls()
	for name, p := range env.ingest(files) {
		if !p.Duplicate {
			t.Errorf("%s: second upload not reported as duplicate", name)
		}
	}
	if second := env.stats(); second != first {
		t.Errorf("second ingest changed counts: %+v -> %+v", first, second)
	}
	if env.model.ChatCalls() != calls {
		t.Errorf("second ingest called the model %d more times", env.model.ChatCalls()-calls)
	}
}

func TestDeleteRemovesExactlyItsContribution(t *testing.T) {
	keep := []string{"munich-city-distances.md", "munich-travel-tips.md"}
	all := append([]string{"airline-registry.md"}, keep...)

	alone := newEnv(t)
	alone.ingest(demoFiles(t, keep...))
	want := alone.stats()

	env := newEnv(t)
	env.ingest(demoFiles(t, all...))
	docs, err := env.store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var registry string
	for _, d := range docs {
		if d.Name == "airline-registry.md" {
			registry = d.ID
		}
	}
	if err := env.ingester.Delete(context.Background(), registry); err != nil {
		t.Fatal(err)
	}
	if got := env.stats(); got != want {
		t.Errorf("after delete %+v, want the counts of a clean ingest without it %+v", got, want)
	}
	hits, err := env.retriever.Search(context.Background(), []graphrag.Query{{Text: "Finnair IATA code AY"}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.DocID == registry {
			t.Errorf("deleted document still retrieved: %s", h.ID)
		}
	}
	if _, err := env.store.Document(context.Background(), registry); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("deleted document still readable: %v", err)
	}
}

func TestBadFileFailsAlone(t *testing.T) {
	env := newEnv(t)
	files := demoFiles(t, "munich-travel-tips.md", "airline-registry.md")
	files["broken.pdf"] = "%PDF-1.4 this is not really a pdf"
	files["binary.txt"] = "\x00\x01\x02\x03 binary"
	files["empty.md"] = "   \n\n"
	got := env.ingest(files)
	for name, p := range got {
		bad := name == "broken.pdf" || name == "binary.txt" || name == "empty.md"
		switch {
		case bad && (p.Status != graphrag.StatusFailed || p.Error == ""):
			t.Errorf("%s: %s %q, want failed with a reason", name, p.Status, p.Error)
		case !bad && p.Status != graphrag.StatusDone:
			t.Errorf("%s: %s %q, want done", name, p.Status, p.Error)
		}
	}
}

func TestFailedExtractionIsRecordedNotDropped(t *testing.T) {
	invalid := func(req llmtest.Request) (llmtest.Reply, bool) {
		if strings.Contains(req.LastUser(), "Oktoberfest") || (len(req.Messages) > 2 && strings.Contains(req.Messages[1].Content, "Oktoberfest")) {
			return llmtest.Reply{Content: "I cannot produce JSON for this."}, true
		}
		return llmtest.Reply{}, false
	}
	env := newEnv(t, invalid)
	got := env.ingest(demoFiles(t, "munich-travel-tips.md"))
	p := got["munich-travel-tips.md"]
	if p.Status != graphrag.StatusDone {
		t.Fatalf("status %s %q, want done with a failed chunk", p.Status, p.Error)
	}
	doc, err := env.store.Document(context.Background(), p.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.FailedChunks != 1 {
		t.Fatalf("failed chunks = %d, want 1", doc.FailedChunks)
	}
	chunks, err := env.store.DocumentChunks(context.Background(), doc.ID)
	if err != nil {
		t.Fatal(err)
	}
	var failed []graphrag.Chunk
	for _, c := range chunks {
		if c.Status == graphrag.ChunkFailed {
			failed = append(failed, c)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0].Text, "Oktoberfest") || !strings.Contains(failed[0].Error, "extraction failed") {
		t.Fatalf("failed chunk not recorded with its reason: %+v", failed)
	}
	// Two extraction attempts, each a first answer plus two repairs.
	var calls int
	for _, r := range env.model.Requests() {
		if strings.Contains(r.LastUser(), "Oktoberfest") || (len(r.Messages) > 2 && strings.Contains(r.Messages[1].Content, "Oktoberfest")) {
			calls++
		}
	}
	if calls != 6 {
		t.Errorf("model calls for the bad chunk = %d, want 6 (2 attempts x 3)", calls)
	}
}

func TestSearchFindsIdentifiersAndDistanceFacts(t *testing.T) {
	env := newEnv(t)
	env.ingest(demoFiles(t))
	ctx := context.Background()
	hits, err := env.retriever.Search(ctx, []graphrag.Query{{Text: "TRV-117"}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].DocName != "nexa-ai-employee-handbook.md" || !strings.Contains(hits[0].Text, "TRV-117") {
		t.Fatalf("TRV-117: top hit %+v, want the handbook chunk", hits)
	}
	res, err := env.retriever.Retrieve(ctx, []graphrag.Query{{Text: "Delhi Munich distance"}}, graphrag.RetrieveOptions{Graph: true})
	if err != nil {
		t.Fatal(err)
	}
	facts, linked := res.Facts, res.Linked
	if len(linked) < 2 {
		t.Fatalf("linked %+v, want Delhi and Munich", linked)
	}
	var found *graphrag.Fact
	for i, f := range facts {
		if f.Relation.Type == "DISTANCE_FROM" && f.Relation.TargetName == "Delhi" {
			found = &facts[i]
			break
		}
	}
	if found == nil {
		t.Fatalf("no Munich->Delhi distance fact in %+v", facts)
	}
	if found != &facts[0] {
		t.Errorf("distance fact ranked below %q", facts[0].Sentence)
	}
	if found.Relation.Values["distance_km"] != 5921.0 || len(found.Sources) == 0 || !strings.Contains(found.Sources[0].Text, "5,921 km") {
		t.Errorf("fact lacks its value or source chunk: %+v", found)
	}
}

func TestDeleteDuringIngestWaits(t *testing.T) {
	slow := func(req llmtest.Request) (llmtest.Reply, bool) {
		if !strings.Contains(req.System(), graphragtest.ExtractionMarker) {
			return llmtest.Reply{}, false
		}
		r, _ := graphragtest.Extraction(req)
		r.Delay = 50 * time.Millisecond
		return r, true
	}
	env := newEnv(t, slow)
	progress, stop := env.ingester.Subscribe()
	defer stop()
	doc, _, err := env.ingester.Submit(context.Background(), "handbook.md", strings.NewReader(demoFiles(t, "nexa-ai-employee-handbook.md")["nexa-ai-employee-handbook.md"]))
	if err != nil {
		t.Fatal(err)
	}
	for p := range progress {
		if p.DocID == doc.ID && p.Status == graphrag.StatusExtracting {
			break
		}
	}
	if err := env.ingester.Delete(context.Background(), doc.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // any write still in flight would land now
	if s := env.stats(); s.Documents != 0 || s.Chunks != 0 || s.Entities != 0 || s.Relations != 0 {
		t.Fatalf("after delete during ingest: %+v, want empty", s)
	}
}
