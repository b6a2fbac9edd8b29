package resolve_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/neo4j"
	"github.com/hopwise/hopwise/graphrag/resolve"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// runIngester starts in until the returned function is called.
func runIngester(ctx context.Context, in *graphrag.Ingester) (stop func()) {
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	return func() { cancel(); <-done }
}

// ingestDemo ingests the demo documents in the order given, one passage at a time, extracted by the
// scripted model of the command's tests (graphragtest.Extraction) and resolved, and counts the entities.
func ingestDemo(t *testing.T, model *llmtest.Server, files []string) map[string]int {
	t.Helper()
	ctx := t.Context()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ingestFiles(t, st, model, files, 1, 1)
	docs, err := st.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, d := range docs {
		counts[d.Name] = d.Entities
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	counts["(all entities)"] = stats.Entities
	return counts
}

// ingestFiles ingests files into st in the order given, workers documents at once and extract passages
// of each at once, extracted by the scripted model (graphragtest.Extraction) and resolved, and waits until
// every one is done.
func ingestFiles(t *testing.T, st graphrag.Store, model *llmtest.Server, files []string, workers, extract int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // slow under -race on a busy machine
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	client := llm.New(llm.Config{BaseURL: model.URL(), Model: "test", EmbedModel: "test-embed", MaxRetries: -1,
		Timeout: 30 * time.Second}, quiet)
	in := graphrag.NewIngester(st, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: workers,
		ExtractConcurrency: extract, Resolver: resolve.New(st.(resolve.Store), client, quiet)}, quiet)
	stop := runIngester(ctx, in)
	defer stop()
	pending := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, _, err := in.Submit(ctx, filepath.Base(f), strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		pending[doc.ID] = f
	}
	if err := graphrag.WaitDone(ctx, st, pending, 10*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

// TestResolutionDoesNotDependOnOrder: the demo documents read in one order and in others end with as many
// entities in each document: what is merged does not depend on which document was read first (a merge
// decided in a later passage takes in an entity an earlier one left apart).
func TestResolutionDoesNotDependOnOrder(t *testing.T) {
	files, err := filepath.Glob("../../samples/docs/*.md")
	if err != nil || len(files) < 3 {
		t.Fatalf("demo documents: %v, %v", files, err)
	}
	if raceDetector {
		// the three documents that share most names (airlines, the EU, the US)
		files = slices.DeleteFunc(files, func(f string) bool { return strings.Contains(f, "munich") || strings.Contains(f, "handbook") })
	}
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	want := ingestDemo(t, model, files)
	for round := range 2 {
		order := slices.Clone(files)
		switch round {
		case 0:
			slices.Reverse(order)
		default:
			order = slices.Concat(order[round:], order[:round])
		}
		if got := ingestDemo(t, model, order); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("entities read in the order %v: %v; in the first order %v", names(order), got, want)
		}
	}
}

// graphShape is what an ingest left in the store, by key: each passage's entity keys (so the key set and
// where each entity is found) and every relation as source, type, target.
type graphShape struct {
	Mentions  map[string][]string // chunk ID -> the keys of the entities it mentions, sorted
	Relations []string            // relation IDs, sorted
}

// keys are the entity keys of the shape, sorted.
func (g graphShape) keys() []string {
	var out []string
	for _, ks := range g.Mentions {
		out = append(out, ks...)
	}
	return graphrag.SortedUnion(out)
}

// diff says how got differs from want: the keys and relations only one of them holds.
func (g graphShape) diff(want graphShape) string {
	only := func(a, b []string) []string {
		return slices.DeleteFunc(slices.Clone(a), func(s string) bool { return slices.Contains(b, s) })
	}
	gk, wk := g.keys(), want.keys()
	return fmt.Sprintf("entities only here %q, only in the first order %q; relations only here %q, only in the first order %q",
		only(gk, wk), only(wk, gk), only(g.Relations, want.Relations), only(want.Relations, g.Relations))
}

// shapeOf reads the shape of what st holds.
func shapeOf(ctx context.Context, t *testing.T, st graphrag.Store) graphShape {
	t.Helper()
	docs, err := st.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range docs {
		cs, err := st.DocumentChunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			ids = append(ids, c.ID)
		}
	}
	sg, err := st.Subgraph(ctx, graphrag.SubgraphQuery{ChunkIDs: ids, PerEntity: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := graphShape{Mentions: map[string][]string{}}
	for c, ks := range sg.ChunkEntities {
		g.Mentions[c] = graphrag.SortedUnion(ks)
	}
	links, err := st.(graphrag.CommunityStore).GraphLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		g.Relations = append(g.Relations, l.ID)
	}
	slices.Sort(g.Relations)
	return g
}

// orderStores opens an empty store of each kind: SQLite always, Neo4j when NEO4J_URI names one (its
// database is wiped).
func orderStores(t *testing.T) map[string]func(t *testing.T) graphrag.Store {
	quiet := slog.New(slog.DiscardHandler)
	stores := map[string]func(t *testing.T) graphrag.Store{
		"sqlite": func(t *testing.T) graphrag.Store {
			st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, quiet)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Log("NEO4J_URI is not set: the orders are compared on SQLite only")
		return stores
	}
	graphragtest.LockNeo4jFor(t)
	stores["neo4j"] = func(t *testing.T) graphrag.Store {
		if err := graphragtest.WipeNeo4j(t.Context(), uri); err != nil {
			t.Fatal(err)
		}
		st, err := neo4j.Open(t.Context(), uri, os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"),
			neo4j.Options{EmbedDim: 64, EmbedModel: "test-embed", Database: os.Getenv("NEO4J_DATABASE")}, quiet)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return stores
}

// ingestShape ingests files into st in the order given, with workers documents at once (each of whose
// passages are extracted two at a time), resolved, and returns the shape of the graph it ends with.
func ingestShape(t *testing.T, st graphrag.Store, model *llmtest.Server, files []string, workers int) graphShape {
	t.Helper()
	ingestFiles(t, st, model, files, workers, 2)
	return shapeOf(t.Context(), t, st)
}

// TestResolutionEndsTheSameInAnyOrder: the demo documents ingested one at a time in one order, in the
// reverse order, and two at a time in a third end with the same entity keys in the same passages and the
// same relations, on SQLite and on Neo4j: a merge decided in a later passage reaches the entity an earlier
// one stored alone, and the key a merged entity keeps does not depend on which name came first.
func TestResolutionEndsTheSameInAnyOrder(t *testing.T) {
	files, err := filepath.Glob("../../samples/docs/*.md")
	if err != nil || len(files) < 3 {
		t.Fatalf("demo documents: %v, %v", files, err)
	}
	if raceDetector {
		files = slices.DeleteFunc(files, func(f string) bool { return strings.Contains(f, "munich") || strings.Contains(f, "handbook") })
	}
	for kind, open := range orderStores(t) {
		t.Run(kind, func(t *testing.T) {
			model := llmtest.New(t, llmtest.WithEmbedDim(64))
			model.Handle(graphragtest.Extraction)
			want := ingestShape(t, open(t), model, files, 1)
			if len(want.keys()) < 20 || len(want.Relations) < 20 {
				t.Fatalf("the demo documents gave %d entities and %d relations", len(want.keys()), len(want.Relations))
			}
			reversed := slices.Clone(files)
			slices.Reverse(reversed)
			rotated := slices.Concat(files[1:], files[:1])
			for _, run := range []struct {
				order   []string
				workers int
			}{{reversed, 1}, {rotated, 2}} {
				got := ingestShape(t, open(t), model, run.order, run.workers)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("read in the order %v with %d workers: %s", names(run.order), run.workers, got.diff(want))
				}
			}
		})
	}
}

func names(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
	}
	return out
}
