package sqlite

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// benchDim is the dimension of the benchmark vectors, that of small sentence-embedding models.
const benchDim = 384

// benchCorpora holds one store per corpus size, built once per test binary run and shared by the
// benchmarks. benchDir is a temporary directory TestMain removes, unless HOPWISE_BENCH_DIR names a
// directory to keep the corpora in between runs.
var (
	benchMu      sync.Mutex
	benchCorpora = map[int]*Store{}
	benchDir     string
	keepBenchDir bool
)

func TestMain(m *testing.M) {
	code := m.Run()
	benchMu.Lock()
	for _, s := range benchCorpora {
		s.Close()
	}
	if benchDir != "" && !keepBenchDir {
		os.RemoveAll(benchDir)
	}
	benchMu.Unlock()
	os.Exit(code)
}

// corpusWords is the synthetic vocabulary: pronounceable words built from syllables.
func corpusWords(r *rand.Rand, n int) []string {
	syllables := strings.Fields("ka lo mi ne tra pol fin ex ber an sa ro vi du gen te mar os lu chi")
	words := make([]string, n)
	for i := range words {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		words[i] = b.String()
	}
	return words
}

// functionWords make up about 40% of the synthetic text, as they do in English prose, so that questions
// hit chunks through them as they would in real documents.
var functionWords = strings.Fields("the of and to a in is that for it as with was on be by this are or from at which an not")

// benchStore returns the store with n synthetic chunks of 120 words (function words and Zipf-distributed
// made-up words, some identifiers like TRV-1234), each with a random 384-dimension vector; the first call
// for a size builds it.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if s := benchCorpora[n]; s != nil {
		return s
	}
	if benchDir == "" && os.Getenv("HOPWISE_BENCH_DIR") != "" {
		keepBenchDir = true
		benchDir = os.Getenv("HOPWISE_BENCH_DIR")
	}
	if benchDir == "" {
		dir, err := os.MkdirTemp("", "hopwise-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchDir = dir
	}
	start := time.Now()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(benchDir, fmt.Sprintf("corpus-%d.db", n)), Options{EmbedDim: benchDim, EmbedModel: "bench"},
		slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if st, err := s.Stats(ctx); err == nil && st.Embedded == n {
		b.Logf("reusing the corpus of %d chunks in %s", n, benchDir)
		benchCorpora[n] = s
		return s
	}
	r := rand.New(rand.NewPCG(42, uint64(n)))
	words := corpusWords(r, 20000)
	zipf := func() string { // a rough Zipf law: low indices far more frequent
		return words[int(float64(len(words))*r.Float64()*r.Float64()*r.Float64())]
	}
	const perDoc = 1000
	for d := 0; d*perDoc < n; d++ {
		src := []byte(fmt.Sprintf("synthetic document %d of %d", d, n))
		doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: fmt.Sprintf("doc-%d.txt", d)}
		if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
			b.Fatal(err)
		}
		count := min(perDoc, n-d*perDoc)
		chunks := make([]graphrag.Chunk, count)
		vectors := make(map[string][]float32, count)
		for i := range chunks {
			var text strings.Builder
			fmt.Fprintf(&text, "Document %d, section %d. ", d, i)
			for w := range 120 {
				if w%40 == 7 && r.IntN(4) == 0 {
					fmt.Fprintf(&text, "TRV-%d ", r.IntN(5000))
				}
				if r.IntN(10) < 4 {
					text.WriteString(functionWords[r.IntN(len(functionWords))])
				} else {
					text.WriteString(zipf())
				}
				text.WriteByte(' ')
			}
			chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, i), Ordinal: i, Text: text.String(), Tokens: 160}
			vectors[chunks[i].ID] = randomVector(r, benchDim)
		}
		if err := s.PutChunks(ctx, doc.ID, chunks); err != nil {
			b.Fatal(err)
		}
		if err := s.SetEmbeddings(ctx, vectors); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("built a corpus of %d chunks in %v", n, time.Since(start).Round(time.Millisecond))
	benchCorpora[n] = s
	return s
}

// benchQueries are question-like word lists drawn from the corpus vocabulary, some with identifiers.
func benchQueries(n int) []string {
	r := rand.New(rand.NewPCG(7, 7))
	words := corpusWords(rand.New(rand.NewPCG(42, uint64(n))), 20000)
	queries := make([]string, 64)
	for i := range queries {
		parts := []string{"what", "does", "the", "policy", "say", "about"}
		for range 2 + r.IntN(3) {
			parts = append(parts, words[r.IntN(2000)])
		}
		if i%3 == 0 {
			parts = append(parts, fmt.Sprintf("TRV-%d", r.IntN(5000)))
		}
		queries[i] = strings.Join(parts, " ")
	}
	return queries
}

func BenchmarkSearchText(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			s := benchStore(b, n)
			queries := benchQueries(n)
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				res, err := s.SearchText(b.Context(), queries[i%len(queries)], 20)
				if err != nil {
					b.Fatal(err)
				}
				if len(res) == 0 {
					b.Fatalf("query %q found nothing", queries[i%len(queries)])
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

func BenchmarkSearchVector(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			s := benchStore(b, n)
			r := rand.New(rand.NewPCG(9, 9))
			queries := make([][]float32, 64)
			for i := range queries {
				queries[i] = randomVector(r, benchDim)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				res, err := s.SearchVector(b.Context(), queries[i%len(queries)], 20)
				if err != nil {
					b.Fatal(err)
				}
				if len(res) != 20 {
					b.Fatalf("found %d chunks, want 20", len(res))
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// reportCPU adds the CPU time per operation since cpu0 as the metric cpu-ms/op: on a shared machine it
// says more than ns/op, which counts the time spent waiting for a CPU.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
