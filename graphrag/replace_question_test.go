package graphrag_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// fleetReport is version v of a report whose every passage names the zebra squadron and v.
func fleetReport(v int) string {
	var b strings.Builder
	b.WriteString("# Fleet report\n\n")
	for i := range 6 {
		fmt.Fprintf(&b, "## Aircraft %d\n\nThe zebra squadron flies aircraft %d, checked in revision %d of the report.\n\n", i, i, v)
	}
	return b.String()
}

// TestSearchesDuringReplacesSeeOneVersion replaces a six-passage report five times through the Ingester
// while four searchers run the store reads a question's retrieval makes, BM25 and vector search for the
// words and the query vector every passage shares: each read finds the six passages of exactly one
// version, never a mix and never none. On SQLite and, with NEO4J_URI, on Neo4j. (The hybrid search of
// one question makes both reads, in parallel; a replace that commits between them still gives it passages
// of both versions: TestRetrievalDuringReplacesSeesOneVersion asks that a whole retrieval pass see one.)
func TestSearchesDuringReplacesSeeOneVersion(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) {
			const query = "zebra squadron aircraft report"
			var store graphrag.Store
			var vecs [][]float32
			var searches, bad atomic.Int64
			versions := sync.Map{}
			runReplaces(t, open, "fleet.md", fleetReport, 6, func(r replaceRig) {
				store = r.store
				var err error
				if vecs, err = r.client.Embed(t.Context(), []string{query}); err != nil {
					t.Fatal(err)
				}
			}, func() {
				text, err := store.SearchText(t.Context(), query, 12)
				searches.Add(1)
				if !oneVersion(t, "SearchText", text, err, &bad, &versions) {
					return
				}
				vector, err := store.SearchVector(t.Context(), vecs[0], 12)
				searches.Add(1)
				oneVersion(t, "SearchVector", vector, err, &bad, &versions)
			})
			seen := 0
			versions.Range(func(any, any) bool { seen++; return true })
			t.Logf("%d searches during 5 replaces saw %d versions, %d of them mixed or incomplete", searches.Load(), seen, bad.Load())
			if seen < 2 {
				t.Errorf("the searches saw %d versions, want several", seen)
			}
			if docs, err := store.Documents(t.Context()); err != nil || len(docs) != 1 {
				t.Errorf("documents after the replaces: %d, %v; want the last version alone", len(docs), err)
			}
		})
	}
}

// replaceRig is what runReplaces ingests through: a store and the scripted model's client.
type replaceRig struct {
	store  graphrag.Store
	client *llm.Client
}

// runReplaces ingests version 1 of report as name through an Ingester (the scripted extraction, two
// workers) on a store from open, calls ready, then calls read over and over in four goroutines while
// versions 2 to last replace it one after another, each ingested to the end; the readers stop 50 ms
// after the last replace.
func runReplaces(t *testing.T, open func(t *testing.T, dim int, model string) graphrag.Store, name string,
	report func(v int) string, last int, ready func(replaceRig), read func()) {
	t.Helper()
	model := llmtest.New(t)
	model.Handle(graphragtest.Extraction)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	client := llm.New(llm.Config{BaseURL: model.URL(), Model: "test", EmbedModel: "test-embed", MaxRetries: -1,
		Timeout: 10 * time.Second}, logger)
	store := open(t, 64, "test-embed")
	in := graphrag.NewIngester(store, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 2, MaxTokens: 40}, logger)
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(t.Context()))
	ran := make(chan struct{})
	go func() { defer close(ran); in.Run(runCtx) }()
	defer func() { stopRun(); <-ran }()
	doc, _, err := in.Submit(t.Context(), name, strings.NewReader(report(1)))
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, store, doc.ID)
	ready(replaceRig{store: store, client: client})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { untilClosed(stop, read) })
	}
	defer wg.Wait()
	defer close(stop)
	for v := 2; v <= last; v++ {
		next, _, err := in.SubmitReplacing(t.Context(), name, "", strings.NewReader(report(v)))
		if err != nil || next.Replaces == "" {
			t.Errorf("SubmitReplacing(version %d) = %+v, %v", v, next, err)
			return
		}
		waitDone(t, store, next.ID)
	}
	time.Sleep(50 * time.Millisecond)
}

// waitDone waits until the document id is done (and no longer replaces another).
func waitDone(t *testing.T, store graphrag.Store, id string) {
	t.Helper()
	// Six scripted passages ingest in about a second on SQLite; on a Neo4j of a machine at load 50 (eight
	// workers on two cores) the first version once took over 60 s with four askers beside it. The tests
	// that wait here are about what readers see, not about ingest speed: 3 minutes, and the slow ones say
	// how long they waited.
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	defer func() {
		if waited := time.Since(start); waited > 20*time.Second {
			t.Logf("document %s took %s to be done", id, waited.Round(time.Second))
		}
	}()
	for {
		d, err := store.Document(t.Context(), id)
		if err == nil && d.Status == graphrag.StatusDone && d.Replaces == "" {
			return
		}
		if err == nil && d.Status == graphrag.StatusFailed {
			t.Fatalf("document %s failed: %s", id, d.Error)
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s not done after 3 minutes: %+v, %v", id, d, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// oneVersion reports whether a search found the six passages of exactly one version, recording it, and
// fails the test (the first three times) when not.
func oneVersion(t *testing.T, what string, found []graphrag.ScoredChunk, err error, bad *atomic.Int64, versions *sync.Map) bool {
	docs := map[string]int{}
	for _, c := range found {
		docs[c.DocID]++
	}
	if err != nil || len(docs) != 1 || len(found) != 6 {
		if bad.Add(1) <= 3 {
			t.Errorf("%s during the replaces found %d passages of versions %v, %v; want the 6 of one", what, len(found), docs, err)
		}
		return false
	}
	for d := range docs {
		versions.Store(d, true)
	}
	return true
}
