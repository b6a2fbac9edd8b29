package neo4j

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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

// TestSameAsSQLite ingests the sample documents into Neo4j and into the embedded store with the same scripted
// model and checks that both hold the same documents, chunks, entities and relations, and that search
// ranks the same passage first.
func TestSameAsSQLite(t *testing.T) {
	uri := testURI(t)
	corpus := filepath.Join("..", "..", "samples", "docs") // the sample documents (package samples)
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatalf("sample documents: %v", err)
	}
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client := llm.New(llm.Config{BaseURL: model.URL(), Model: "test", EmbedModel: testModel, MaxRetries: -1, Timeout: 10 * time.Second}, quiet)

	wipe(t, uri, 64, false)
	stores := map[string]graphrag.Store{"neo4j": openOn(t, uri, 64, testModel)}
	lite, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: testModel}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lite.Close() })
	stores["sqlite"] = lite

	stats := map[string]graphrag.Stats{}
	for name, store := range stores {
		ingestAll(t, store, client, quiet, corpus, entries)
		s, err := store.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		stats[name] = s
	}
	if stats["neo4j"] != stats["sqlite"] {
		t.Errorf("counts differ:\nneo4j  %+v\nsqlite %+v", stats["neo4j"], stats["sqlite"])
	}
	t.Logf("both stores: %+v", stats["sqlite"])

	for _, q := range []string{"TRV-117", "Delhi Munich distance", "S-Bahn from the airport to the central station", "Who founded Nexa AI?", "IATA code AY"} {
		top := map[string][]string{}
		for name, store := range stores {
			hits, err := graphrag.NewRetriever(store, client).Search(context.Background(), []graphrag.Query{{Text: q}}, 5)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				top[name] = append(top[name], h.ID)
			}
		}
		if len(top["neo4j"]) == 0 || len(top["sqlite"]) == 0 || top["neo4j"][0] != top["sqlite"][0] {
			t.Errorf("%q: first result differs: neo4j %v, sqlite %v", q, top["neo4j"], top["sqlite"])
		}
		t.Logf("%q: neo4j %s | sqlite %s", q, strings.Join(top["neo4j"], " "), strings.Join(top["sqlite"], " "))
	}
}

func ingestAll(t *testing.T, store graphrag.Store, client *llm.Client, logger *slog.Logger, dir string, entries []os.DirEntry) {
	t.Helper()
	in := graphrag.NewIngester(store, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 2}, logger)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); in.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	progress, stop := in.Subscribe()
	defer stop()
	waiting := map[string]bool{}
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		doc, _, err := in.Submit(ctx, e.Name(), f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		waiting[doc.ID] = true
	}
	deadline := time.After(60 * time.Second)
	for len(waiting) > 0 {
		select {
		case p := <-progress:
			if waiting[p.DocID] && p.Status.Finished() {
				if p.Status != graphrag.StatusDone {
					t.Fatalf("%s: %s %s", p.Name, p.Status, p.Error)
				}
				delete(waiting, p.DocID)
			}
		case <-deadline:
			t.Fatalf("ingest did not finish: %d documents left", len(waiting))
		}
	}
}
