package graphrag_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/neo4j"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// reindexStore opens an empty store of each kind for embeddings of dim from model: SQLite always, Neo4j
// when NEO4J_URI names one (its database is wiped).
func reindexStores(t *testing.T) map[string]func(t *testing.T, dim int, model string) graphrag.Store {
	stores := map[string]func(t *testing.T, dim int, model string) graphrag.Store{
		"sqlite": func(t *testing.T, dim int, model string) graphrag.Store {
			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: dim, EmbedModel: model}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Log("NEO4J_URI is not set: the re-index runs on SQLite only (make neo4j, then NEO4J_URI=bolt://127.0.0.1:7687)")
		return stores
	}
	stores["neo4j"] = func(t *testing.T, dim int, model string) graphrag.Store {
		graphragtest.LockNeo4jFor(t)
		if err := graphragtest.WipeNeo4j(t.Context(), uri); err != nil {
			t.Fatal(err)
		}
		s, err := neo4j.Open(t.Context(), uri, os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"),
			neo4j.Options{EmbedDim: dim, EmbedModel: model, Database: os.Getenv("NEO4J_DATABASE")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return stores
}

// models is an old embedding model (64 dimensions) and the new one it is replaced by (32), each behind
// its own scripted server, and the client of each.
type models struct {
	old, new             *llmtest.Server
	oldClient, newClient *llm.Client
}

func newModels(t *testing.T, newDelay time.Duration) models {
	old := llmtest.New(t)
	old.Handle(graphragtest.Extraction)
	next := llmtest.New(t, llmtest.WithEmbedDim(32))
	next.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Delay: newDelay}, req.IsEmbed()
	})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	client := func(s *llmtest.Server, embed string) *llm.Client {
		return llm.New(llm.Config{BaseURL: s.URL(), Model: "test", EmbedModel: embed, MaxRetries: -1, Timeout: 10 * time.Second}, logger)
	}
	return models{old: old, new: next, oldClient: client(old, "test-embed"), newClient: client(next, "new-embed")}
}

// TestReindexToAnotherDimensionAnswersThroughout ingests the six sample documents with a 64-dimension
// model, then re-embeds them with a 32-dimension one (in batches of four, each call 30 ms) while four
// searchers ask through a Retriever whose queries a SpaceEmbedder embeds: no search fails or comes back
// empty, before, during or after the swap, and at the end every passage and fact has the new model's
// vector (each passage is the nearest to its own text's new vector) and the store records the new model.
func TestReindexToAnotherDimensionAnswersThroughout(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) {
			m := newModels(t, 30*time.Millisecond)
			store := open(t, 64, "test-embed")
			logger := slog.New(slog.NewTextHandler(io.Discard, nil))
			in := graphrag.NewIngester(store, m.oldClient, graphrag.NewLLMExtractor(m.oldClient), graphrag.IngestOptions{Workers: 2}, logger)
			if err := graphragtest.IngestDir(t.Context(), in, store, demoDir); err != nil {
				t.Fatal(err)
			}
			before, err := store.ReembedState(t.Context())
			if err != nil || before.Chunks == 0 || before.Relations == 0 {
				t.Fatalf("ReembedState after ingest = %+v, %v; want passages and facts with vectors", before, err)
			}
			target := graphrag.EmbeddingSpace{Model: "new-embed", Dim: 32}
			embed := graphrag.NewSpaceEmbedder(store, m.newClient, target, func(model string) graphrag.Embedder {
				if model == "test-embed" {
					return m.oldClient
				}
				return m.newClient
			})
			retriever := graphrag.NewRetriever(store, embed)

			stop := make(chan struct{})
			var wg sync.WaitGroup
			var searches, failures atomic.Int64
			for _, q := range []string{"Delhi Munich distance", "denied boarding compensation", "Lufthansa", "TRV-117"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						select {
						case <-stop:
							return
						default:
						}
						found, err := retriever.Search(t.Context(), []graphrag.Query{{Text: q}}, 5)
						if err != nil || len(found) == 0 {
							if failures.Add(1) <= 3 {
								t.Errorf("Search(%q) during the re-index = %d passages, %v", q, len(found), err)
							}
						}
						searches.Add(1)
					}
				}()
			}
			oldCalls := m.old.EmbedCalls()
			var steps []graphrag.ReindexProgress
			counted := &countingEmbedder{Embedder: m.newClient}
			r := graphrag.NewReindexer(store, counted, target, logger)
			err = r.Run(t.Context(), graphrag.ReindexOptions{Embeddings: true, Batch: 4}, func(p graphrag.ReindexProgress) {
				steps = append(steps, p)
			})
			time.Sleep(100 * time.Millisecond) // searches after the swap
			close(stop)
			wg.Wait()
			if err != nil {
				t.Fatalf("Reindex: %v", err)
			}
			t.Logf("%d searches during the re-index of %d passages and %d facts, %d failed", searches.Load(), before.Chunks, before.Relations, failures.Load())
			if m.old.EmbedCalls() == oldCalls {
				t.Errorf("no query was embedded by the old model during the re-index")
			}
			if searches.Load() < 20 {
				t.Errorf("only %d searches ran during the re-index", searches.Load())
			}

			total := before.Chunks + before.Relations
			if last := steps[len(steps)-1]; !last.Finished || last.Error != "" || last.Done != total || last.Total != total {
				t.Errorf("last progress = %+v, want finished with %d of %d done", last, total, total)
			}
			// A batch is up to 4 passages and 4 facts, embedded in one call.
			rounds := (max(before.Chunks, before.Relations) + 3) / 4
			if calls := counted.calls.Load(); calls != int64(rounds) {
				t.Errorf("the re-index made %d embedding calls, want %d (batches of 4 passages and 4 facts)", calls, rounds)
			}
			if len(steps) < rounds {
				t.Errorf("%d progress reports for %d batches, want one a batch", len(steps), rounds)
			}
			if got := store.EmbeddingSpace(); got != target {
				t.Errorf("EmbeddingSpace() = %+v, want %+v", got, target)
			}
			after, err := store.ReembedState(t.Context())
			if err != nil || after.Target.Dim != 0 || after.Chunks != before.Chunks || after.Relations != before.Relations {
				t.Errorf("ReembedState after = %+v, %v; want no target and the counts of before (%+v)", after, err, before)
			}
			if missing, err := graphragtest.NotReembedded(t.Context(), store, 32); err != nil || len(missing) > 0 {
				t.Errorf("passages not re-embedded: %v, %v", missing, err)
			}
		})
	}
}

// countingEmbedder counts the calls it passes on.
type countingEmbedder struct {
	graphrag.Embedder
	calls atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls.Add(1)
	return c.Embedder.Embed(ctx, texts)
}

// TestSpaceEmbedderSaysToReindex: when the model the store's vectors came from now gives another
// dimension (the model's name was kept, the model behind it changed), questions fail saying to re-index.
func TestSpaceEmbedderSaysToReindex(t *testing.T) {
	m := newModels(t, 0)
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	embed := graphrag.NewSpaceEmbedder(store, m.newClient, graphrag.EmbeddingSpace{Model: "test-embed", Dim: 32},
		func(string) graphrag.Embedder { return m.newClient })
	_, err = embed.Embed(context.Background(), []string{"Delhi"})
	if err == nil || !strings.Contains(err.Error(), "hopwise reindex --embeddings") {
		t.Errorf("Embed with the store in another dimension = %v, want an error naming hopwise reindex --embeddings", err)
	}
}
