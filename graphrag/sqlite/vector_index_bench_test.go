package sqlite

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// BenchmarkVectorIndexSearch is the vector index alone, in memory, at 100k vectors (and the sizes of
// HOPWISE_BENCH_VECTORS, e.g. "100000,1000000") shaped as a sentence-embedding model's (embeddingLike):
// the CPU of one search for the 30 candidates SearchVector re-ranks for k=10 (cpu-ms/op), their recall of
// the exact 10 nearest (recall@10, over 32 queries against a float64 scan), and the Go heap the index
// holds (MB-heap). No store file: the whole store at a million passages is eval/storebench's.
func BenchmarkVectorIndexSearch(b *testing.B) {
	sizes := []int{100_000}
	if v := os.Getenv("HOPWISE_BENCH_VECTORS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("HOPWISE_BENCH_VECTORS: %q is not a size", f)
			}
			sizes = append(sizes, n)
		}
	}
	const dim, k = 384, 10
	for _, n := range sizes {
		b.Run(fmt.Sprintf("vectors=%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 5))
			vecs, topic := embeddingLike(r, n, dim)
			runtime.GC()
			before := heapInUse()
			idx := newVectorIndex(dim)
			for i, v := range vecs {
				idx.put(int64(i+1), v)
			}
			runtime.GC()
			heap := heapInUse() - before
			queries := make([][]float32, 32)
			for i := range queries {
				queries[i] = topic(r)
			}
			found := 0
			for _, q := range queries {
				want := exactNearest(vecs, q, k)
				for _, h := range idx.search(q, k+graphrag.RerankExtra(k)) {
					if slices.Contains(want, h.seq) {
						found++
					}
				}
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				if len(idx.search(queries[i%len(queries)], k+graphrag.RerankExtra(k))) == 0 {
					b.Fatal("found nothing")
				}
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(found)/float64(len(queries)*k), "recall@10")
			b.ReportMetric(float64(heap)/(1<<20), "MB-heap")
			runtime.KeepAlive(idx)
		})
	}
}

// exactNearest is the seqs (index + 1) of the k vectors nearest q by cosine.
func exactNearest(vecs [][]float32, q []float32, k int) []int64 {
	unit := make([]float32, len(q))
	normalize(unit, q)
	top := topK{k: k}
	v := make([]float32, len(q))
	for i, x := range vecs {
		normalize(v, x)
		top.offer(i, dot(unit, v))
	}
	out := make([]int64, len(top.slots))
	for i, s := range top.slots {
		out[i] = int64(s + 1)
	}
	return out
}

func heapInUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
