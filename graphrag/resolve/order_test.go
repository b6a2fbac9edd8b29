package resolve_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // slow under -race on a busy machine
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	client := llm.New(llm.Config{BaseURL: model.URL(), Model: "test", EmbedModel: "test-embed", MaxRetries: -1,
		Timeout: 10 * time.Second}, quiet)
	in := graphrag.NewIngester(st, client, graphrag.NewLLMExtractor(client), graphrag.IngestOptions{Workers: 1,
		ExtractConcurrency: 1, Resolver: resolve.New(st, client, quiet)}, quiet)
	defer runIngester(ctx, in)()
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

func names(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
	}
	return out
}
