package eval_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm"
)

// sliceDir holds the first questions of shared/bench/musique with the passages they came with, GPT-3.5's
// recorded extraction of those passages and all-MiniLM-L6-v2's vectors of every text the benchmark embeds
// (testdata/musique-slice/NOTICE says where they come from).
const (
	sliceDir       = "testdata/musique-slice"
	sliceQuestions = 10
)

// TestMuSiQueSliceGraphHelps runs the retrieval benchmark on the slice through the real ingestion (the
// recorded extraction replayed), the real store and the real retrieval, with the recorded MiniLM vectors:
// the graph must raise hybrid search's recall at 2 and 5, and hybrid must not fall below BM25 or the
// vectors alone.
//
// HOPWISE_BENCH_RECORD=<embeddings base URL> (the local all-minilm-l6-v2 server of `make models`) cuts
// the slice again from ../shared/bench/musique and records its vectors.
func TestMuSiQueSliceGraphHelps(t *testing.T) {
	if url := os.Getenv("HOPWISE_BENCH_RECORD"); url != "" {
		recordSlice(t, url)
	}
	b, err := eval.LoadBench(sliceDir)
	if err != nil {
		t.Fatal(err)
	}
	vectors, err := eval.LoadRecordedEmbedder(filepath.Join(sliceDir, "vectors.bin.gz"))
	if err != nil {
		t.Fatal(err)
	}
	results := benchOn(t, b, vectors)
	var table strings.Builder
	if err := eval.WriteBenchTable(&table, b.Name, results); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	by := map[string]eval.BenchResult{}
	for _, r := range results {
		by[r.Method] = r
	}
	hybrid, fused, keyword := by[eval.MethodHybrid], by[eval.MethodHybridGraph], by[eval.MethodKeyword]
	// The graph (the walk and the bridge queries of its facts) must raise recall at 2 and 5 (on this
	// slice: hybrid 0.700 / 0.783, hybrid + graph 0.750 / 0.833).
	const at5 = 1
	for i, k := range hybrid.Ks {
		if fused.Recall[i] <= hybrid.Recall[i] {
			t.Errorf("R@%d: hybrid + graph %.3f not above hybrid %.3f", k, fused.Recall[i], hybrid.Recall[i])
		}
		if hybrid.Recall[i] < keyword.Recall[i] {
			t.Errorf("R@%d: hybrid %.3f below BM25 alone %.3f", k, hybrid.Recall[i], keyword.Recall[i])
		}
		if d := by[eval.MethodDense]; hybrid.Recall[i] < d.Recall[i] {
			t.Errorf("R@%d: hybrid %.3f below the vectors alone %.3f", k, hybrid.Recall[i], d.Recall[i])
		}
	}
	if sub := by[eval.MethodGoldSubQuery]; sub.Recall[at5] < fused.Recall[at5] {
		t.Errorf("R@5 with the gold sub-questions %.3f below the question alone %.3f", sub.Recall[at5], fused.Recall[at5])
	}
}

// benchOn ingests the bench into a new SQLite store with emb and measures it.
func benchOn(t *testing.T, b *eval.Bench, emb interface {
	graphrag.Embedder
	Dim() int
}) []eval.BenchResult {
	t.Helper()
	// 3 s alone, 36 s under the race detector, 123 s once on a loaded 2-core machine: the deadline only
	// guards against a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	st := benchStore(ctx, t, b, emb, "all-minilm-l6-v2")
	results, err := eval.BenchRecall(ctx, graphrag.NewRetriever(st, emb), b, []int{2, 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return results
}

// benchStore ingests the bench into a new SQLite store (closed when the test ends) with emb, replaying its
// recorded extraction.
func benchStore(ctx context.Context, t *testing.T, b *eval.Bench, emb interface {
	graphrag.Embedder
	Dim() int
}, model string) *sqlite.Store {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "bench.db"), sqlite.Options{EmbedDim: emb.Dim(), EmbedModel: model}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	in := graphrag.NewIngester(st, emb, eval.NewReplayExtractor(b), graphrag.IngestOptions{Workers: 2}, quiet)
	if err := eval.IngestBench(ctx, st, in, b); err != nil {
		t.Fatal(err)
	}
	return st
}

// recordSlice cuts the slice from the shared benchmark and records the vectors of every text the
// benchmark embeds from the embedding server at url.
func recordSlice(t *testing.T, url string) {
	dir := evaltest.Shared("bench/musique")
	if dir == "" {
		t.Fatal("HOPWISE_BENCH_RECORD: ../shared/bench/musique is not beside this repository")
	}
	full, err := eval.LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	slice := full.Slice(sliceQuestions)
	slice.Name = "musique-slice"
	if err := slice.Write(sliceDir); err != nil {
		t.Fatal(err)
	}
	client := llm.New(llm.Config{BaseURL: url, EmbedBaseURL: url, EmbedModel: "all-minilm-l6-v2", Model: "none",
		Timeout: time.Minute}, slog.New(slog.DiscardHandler))
	rec := eval.NewRecorder(client)
	results := benchOn(t, slice, dimmed{rec, 384})
	if err := rec.Save(filepath.Join(sliceDir, "vectors.bin.gz")); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded the slice: %d questions, %d passages; hybrid + graph R@5 %.3f with the live model",
		len(slice.Questions), len(slice.Passages), results[4].Recall[1])
}

type dimmed struct {
	graphrag.Embedder
	dim int
}

func (d dimmed) Dim() int { return d.dim }
