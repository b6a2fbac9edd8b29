package storebench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
)

// BenchmarkHybridSearch is one question through hybrid search as the agent runs it: the query embedded
// (hashing, no model), BM25 and vector search, fused, top 10. It reports the median (p50-ms) besides the
// mean, and the CPU time a question takes (cpu-ms/op; server-cpu-ms/op too, see passCPU).
func BenchmarkHybridSearch(b *testing.B) {
	forEachStore(b, func(b *testing.B, st graphrag.Store, c corpus) {
		r := graphrag.NewRetriever(st, embedder{})
		qs := c.queries()
		found := 0
		var took []time.Duration
		b.ResetTimer()
		cpu := startCPU()
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			res, err := r.Search(b.Context(), []graphrag.Query{{Text: qs[i%len(qs)]}}, 10)
			if err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
			found += len(res)
		}
		cpu.report(b, len(took))
		if found == 0 {
			b.Fatal("no query found anything")
		}
		reportMedian(b, took)
	})
}

// reportMedian reports the median of took as p50-ms.
func reportMedian(b *testing.B, took []time.Duration) {
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkGraphFacts is one question through retrieval as the agent's pass runs it: hybrid search, the
// entities it names linked, the subgraph around them and the first passages read, the walk, 16 facts with
// 2 source chunks each. It reports the median (p50-ms) besides the mean, and the CPU time a pass takes
// (cpu-ms/op; server-cpu-ms/op too, see passCPU).
func BenchmarkGraphFacts(b *testing.B) {
	forEachStore(b, func(b *testing.B, st graphrag.Store, c corpus) {
		r := graphrag.NewRetriever(st, embedder{})
		qs := c.queries()
		facts := 0
		var took []time.Duration
		b.ResetTimer()
		cpu := startCPU()
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			res, err := r.Retrieve(b.Context(), []graphrag.Query{{Text: qs[i%len(qs)]}}, eval.AgentRetrieval)
			if err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
			facts += len(res.Facts)
		}
		cpu.report(b, len(took))
		if facts == 0 {
			b.Fatal("no query found a fact")
		}
		reportMedian(b, took)
		b.ReportMetric(float64(facts)/float64(b.N), "facts/op")
	})
}

// BenchmarkSQLiteOpenHeap measures the Go heap an open embedded store holds (its in-memory vector copy and
// caches), reported per 100k chunks, after a GC, against the heap before opening.
func BenchmarkSQLiteOpenHeap(b *testing.B) {
	for _, n := range sizes(b, "sqlite") {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			path := sqlitePath(b, n)
			var perChunks float64
			for b.Loop() {
				before := heapInUse()
				st, err := sqlite.Open(context.Background(), path, sqlite.Options{EmbedDim: dim, EmbedModel: "storebench"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				after := heapInUse()
				if _, err := st.Stats(context.Background()); err != nil {
					b.Fatal(err)
				}
				st.Close()
				perChunks = float64(after-before) / float64(n) * 100_000
			}
			b.ReportMetric(perChunks/(1<<20), "MB-heap/100k-chunks")
			if fi, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(fi.Size())/float64(n)*100_000/(1<<20), "MB-file/100k-chunks")
			}
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
