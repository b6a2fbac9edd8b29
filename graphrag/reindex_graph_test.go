package graphrag_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// secondModel is a chat model that extracts the graph as graphragtest.SecondExtraction does, each call
// taking delay.
func secondModel(t *testing.T, delay time.Duration) (*llmtest.Server, *llm.Client) {
	s := llmtest.New(t)
	s.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		r, ok := graphragtest.SecondExtraction(req)
		r.Delay = delay
		return r, ok
	})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	return s, llm.New(llm.Config{BaseURL: s.URL(), Model: "second", EmbedModel: "test-embed", MaxRetries: -1, Timeout: 10 * time.Second}, logger)
}

// graphRead is what a reader finds of the graph around the demo's cities in one read: how many relations,
// and how many of them the second model wrote.
type graphRead struct{ relations, second int }

func readGraph(t *testing.T, store graphrag.Store, keys []string) (graphRead, error) {
	edges, err := store.Neighborhood(t.Context(), keys, 1, 200)
	r := graphRead{relations: len(edges)}
	for _, e := range edges {
		if graphragtest.IsSecond(e.Description) {
			r.second++
		}
	}
	return r, err
}

// allRelations reads every relation of the graph with its description.
func allRelations(t *testing.T, store graphrag.Store) []graphrag.Edge {
	t.Helper()
	links, err := store.GraphLinks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range links {
		keys = append(keys, l.Source, l.Target)
	}
	edges, err := store.Neighborhood(t.Context(), graphrag.SortedUnion(keys), 1, 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(edges) != len(links) {
		t.Fatalf("Neighborhood of every entity = %d relations, GraphLinks %d", len(edges), len(links))
	}
	return edges
}

// TestReindexGraphAnswersThroughout ingests the sample documents with one chat model, renames Munich by
// hand, then extracts the graph again with a second model (each call 5 ms, four at a time, in rounds of
// four) while readers read the graph around Munich and Delhi: every read finds relations, all of the first
// model or all of the second (never a mix), and none of the first once one of the second was seen; every
// new extraction goes through the resolver given (as the ingester's would). At
// the end the graph is the second model's (every relation its description, the counts of a fresh ingest
// with it), Munich keeps the name it was given, and the progress counted every passage once. Whole
// retrieval passes run beside the reads: each finds facts all of one model, also those that straddled
// the swap (the commit changes the store's Generation, so such a pass is made again).
func TestReindexGraphAnswersThroughout(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) {
			m := newModels(t, 0)
			store := open(t, 64, "test-embed")
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			in := graphrag.NewIngester(store, m.oldClient, graphrag.NewLLMExtractor(m.oldClient), graphrag.IngestOptions{Workers: 2}, logger)
			if err := graphragtest.IngestDir(t.Context(), in, store, demoDir); err != nil {
				t.Fatal(err)
			}
			munich, delhi := graphrag.NormalizeKey("Munich"), graphrag.NormalizeKey("Delhi")
			if _, err := (graphrag.Editor{Store: store}).Apply(t.Context(), graphrag.EditRequest{Kind: graphrag.EditRename, Key: munich, Name: "München"}); err != nil {
				t.Fatalf("rename Munich: %v", err)
			}
			before, err := readGraph(t, store, []string{munich, delhi})
			if err != nil || before.relations == 0 || before.second != 0 {
				t.Fatalf("the graph around Munich and Delhi before = %+v, %v; want the first model's relations", before, err)
			}
			st, err := store.ReextractState(t.Context())
			if err != nil || st.Chunks == 0 || st.Model != "" {
				t.Fatalf("ReextractState before = %+v, %v", st, err)
			}

			retriever := graphrag.NewRetriever(store, m.oldClient)
			if f := passFacts(t, retriever); f.all == 0 || f.second != 0 {
				t.Fatalf("a retrieval pass before = %+v; want facts of the first model", f)
			}
			second, client := secondModel(t, 5*time.Millisecond)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var reads, failures atomic.Int64
			var passes, mixed atomic.Int64
			// Whole retrieval passes (search, linking, the walk, its facts, bridge searches) beside the graph
			// reads: every fact of a pass is of one model, also of a pass that straddled the swap.
			wg.Go(func() {
				untilClosed(stop, func() {
					f := passFacts(t, retriever)
					passes.Add(1)
					if (f.all == 0 || f.second != 0 && f.second != f.all) && mixed.Add(1) <= 3 {
						t.Errorf("a retrieval pass during the re-extraction found %d facts, %d of them the second model's; want facts all of one model", f.all, f.second)
					}
				})
			})
			for range 3 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sawSecond := false
					for {
						select {
						case <-stop:
							return
						default:
						}
						r, err := readGraph(t, store, []string{munich, delhi})
						bad := err != nil || r.relations == 0 || r.second != 0 && r.second != r.relations || sawSecond && r.second == 0
						if bad && failures.Add(1) <= 3 {
							t.Errorf("a read during the re-extraction = %+v, %v (second model seen before: %v); want relations all of one model, the second's once seen",
								r, err, sawSecond)
						}
						sawSecond = sawSecond || r.second > 0
						reads.Add(1)
					}
				}()
			}
			resolver := &countingResolver{Resolver: graphrag.EditRules{Store: store}}
			r := graphrag.NewReindexer(store, m.oldClient, store.EmbeddingSpace(), logger).WithGraph(graphrag.GraphReindex{
				Extractor: graphrag.NewLLMExtractor(client), Resolver: resolver, Embed: m.oldClient, Model: "second"})
			var steps []graphrag.ReindexProgress
			err = r.Run(t.Context(), graphrag.ReindexOptions{Graph: true, Batch: 4}, func(p graphrag.ReindexProgress) {
				steps = append(steps, p)
			})
			time.Sleep(50 * time.Millisecond) // reads after the swap
			close(stop)
			wg.Wait()
			if err != nil {
				t.Fatalf("Reindex: %v", err)
			}
			t.Logf("%d reads of the graph during the re-extraction of %d passages, %d failed; %d retrieval passes, %d mixed",
				reads.Load(), st.Chunks, failures.Load(), passes.Load(), mixed.Load())
			if f := passFacts(t, retriever); f.all == 0 || f.second != f.all {
				t.Errorf("a retrieval pass after = %+v; want facts of the second model alone", f)
			}
			if reads.Load() < 20 {
				t.Errorf("only %d reads during the re-extraction", reads.Load())
			}
			if n := resolver.calls.Load(); n != int64(st.Chunks) {
				t.Errorf("the resolver rewrote %d extractions of %d passages, want each", n, st.Chunks)
			}
			if calls := second.ChatCalls(); calls != st.Chunks {
				t.Errorf("the second model was asked %d times for %d passages, want once each", calls, st.Chunks)
			}
			last := steps[len(steps)-1]
			if !last.Finished || last.Error != "" || last.Step != graphrag.StepGraph || last.Done != st.Chunks || last.Total != st.Chunks || last.Kept != 0 {
				t.Errorf("last progress = %+v, want the graph step finished with %d of %d", last, st.Chunks, st.Chunks)
			}
			if len(steps) < st.Chunks {
				t.Errorf("%d progress reports for %d passages, want one a passage", len(steps), st.Chunks)
			}

			for _, e := range allRelations(t, store) {
				if !graphragtest.IsSecond(e.Description) {
					t.Errorf("relation %s after the re-extraction is the first model's: %q", e.ID, e.Description)
				}
			}
			if es, err := store.Entities(t.Context(), []string{munich}); err != nil || len(es) != 1 || es[0].Name != "München" {
				t.Errorf("Munich after the re-extraction = %+v, %v; want the name it was given by hand", es, err)
			}
			fresh, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "fresh.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			in2 := graphrag.NewIngester(fresh, m.oldClient, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 2}, logger)
			if err := graphragtest.IngestDir(t.Context(), in2, fresh, demoDir); err != nil {
				t.Fatal(err)
			}
			got, err1 := store.Stats(t.Context())
			want, err2 := fresh.Stats(t.Context())
			if err1 != nil || err2 != nil || got != want {
				t.Errorf("Stats after the re-extraction = %+v (%v), a fresh ingest with the second model %+v (%v)", got, err1, want, err2)
			}
			if st, err := store.ReextractState(t.Context()); err != nil || st.Model != "" || st.Staged != 0 {
				t.Errorf("ReextractState after = %+v, %v; want none under way", st, err)
			}
		})
	}
}

// untilClosed calls f over and over until stop is closed.
func untilClosed(stop <-chan struct{}, f func()) {
	for {
		select {
		case <-stop:
			return
		default:
			f()
		}
	}
}

// factCount is what a retrieval pass found of the graph: how many facts, and how many of them the second
// model wrote.
type factCount struct{ all, second int }

// passFacts runs a whole retrieval pass about the demo's flight from Munich to Delhi.
func passFacts(t *testing.T, r *graphrag.Retriever) factCount {
	res, err := r.Retrieve(t.Context(), []graphrag.Query{{Text: "How far is the flight from Munich to Delhi?"}},
		graphrag.RetrieveOptions{K: 8, Graph: true})
	if err != nil {
		t.Errorf("Retrieve: %v", err)
		return factCount{}
	}
	f := factCount{all: len(res.Facts)}
	for _, fact := range res.Facts {
		if graphragtest.IsSecond(fact.Relation.Description) {
			f.second++
		}
	}
	return f
}

// countingResolver counts the extractions it passes on.
type countingResolver struct {
	graphrag.Resolver
	calls atomic.Int64
}

func (c *countingResolver) Resolve(ctx context.Context, ch graphrag.Chunk, x graphrag.Extraction) (graphrag.Extraction, error) {
	c.calls.Add(1)
	return c.Resolver.Resolve(ctx, ch, x)
}
