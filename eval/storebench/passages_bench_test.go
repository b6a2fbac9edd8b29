package storebench

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
)

// The embedded store at scale (issue 19): hybrid search, opening, heap and the vector index's recall over
// the corpus's passages and vectors at 100k and 1M chunks. These corpora hold no graph (hybrid search
// reads none), so that a million passages build in minutes; they are cached beside the others (cacheDir)
// with their vector index file.

// passageSizes are the passage corpus sizes: HOPWISE_BENCH_PASSAGES (e.g. "100000,1000000"), else 100k.
func passageSizes(b *testing.B) []int {
	v := os.Getenv("HOPWISE_BENCH_PASSAGES")
	if v == "" {
		return []int{100_000}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			b.Fatalf("HOPWISE_BENCH_PASSAGES: %q is not a size", f)
		}
		out = append(out, n)
	}
	return out
}

// passagesOnly takes a corpus's documents, chunks and vectors and drops its extractions.
type passagesOnly struct{ graphrag.Store }

func (passagesOnly) PutExtraction(context.Context, graphrag.Extraction) error { return nil }

// passagesPath is the cached passage corpus of n chunks, built when missing.
func passagesPath(b *testing.B, n int) string {
	path := filepath.Join(cacheDir(b), fmt.Sprintf("%s-passages-%d.db", corpusVersion, n))
	return cachedSQLite(b, path, "sqlite passages", n, false)
}

// cachedSQLite returns path, first building there the corpus of n chunks (with its graph, or its passages
// alone through passagesOnly) when the file is missing. The store's vector index file moves along with
// it: it names its store file by a token inside, not by path. A passage corpus half built (path.building,
// left by a build that was stopped) is resumed after its last document with every vector, since a
// million passages take hours on a loaded machine; a graph corpus half built is built again.
func cachedSQLite(b *testing.B, path, kind string, n int, graph bool) string {
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".building"
	if graph {
		for _, suffix := range []string{"", "-wal", "-shm", ".vectors", ".clean"} {
			os.Remove(tmp + suffix)
		}
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, tmp, sqlite.Options{EmbedDim: dim, EmbedModel: "storebench"}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	var store graphrag.Store = st
	from := 0
	if !graph {
		store = passagesOnly{st}
		stats, err := st.Stats(ctx)
		if err != nil {
			st.Close()
			b.Fatal(err)
		}
		// Each document's vectors are set in one transaction: the documents before from are whole.
		if from = stats.Embedded / chunksPerDoc; from > 0 {
			b.Logf("resuming the %s corpus of %d chunks after document %d: %s", kind, n, from, tmp)
		}
	}
	start := time.Now()
	if err := newCorpus(n).seed(ctx, store, 1, from, graph, buildProgress(b, kind, n, start)); err != nil {
		st.Close()
		b.Fatalf("build the %s corpus of %d chunks: %v", kind, n, err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	for _, suffix := range []string{".vectors", ".clean", ""} {
		if err := os.Rename(tmp+suffix, path+suffix); err != nil && suffix == "" {
			b.Fatal(err)
		}
	}
	took := time.Since(start)
	b.Logf("built the %s corpus of %d chunks in %v (%.0f chunks/s): %s", kind, n, took.Round(time.Second), float64(n-from*chunksPerDoc)/took.Seconds(), path)
	return path
}

// passageStore opens the cached passage corpus of n chunks, once per test binary.
func passageStore(b *testing.B, n int) graphrag.Store {
	path := passagesPath(b, n)
	return registered(b, fmt.Sprintf("passages-%d", n), func() (graphrag.Store, error) {
		return sqlite.Open(context.Background(), path, sqlite.Options{EmbedDim: dim, EmbedModel: "storebench"},
			slog.New(slog.DiscardHandler))
	})
}

// registered is the store open registers under key, opened by opener the first time.
func registered(b *testing.B, key string, opener func() (graphrag.Store, error)) graphrag.Store {
	open.Lock()
	defer open.Unlock()
	if st := open.stores[key]; st != nil {
		return st
	}
	st, err := opener()
	if err != nil {
		b.Fatal(err)
	}
	open.stores[key] = st
	return st
}

// quantiles reports the median and the 95th percentile of took, in milliseconds, as prefix-p50-ms and
// prefix-p95-ms.
func quantiles(b *testing.B, prefix string, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	slices.Sort(took)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(took[len(took)/2]), prefix+"p50-ms")
	b.ReportMetric(ms(took[len(took)*95/100]), prefix+"p95-ms")
}

// BenchmarkPassagesHybrid is BenchmarkHybridSearch over the passage corpora (one question, top 10), with
// the median and 95th percentile, and the medians of its two searches alone; the CPU time of each, which
// a loaded machine changes little (cpu-ms/op for hybrid search, text-cpu-ms and vector-cpu-ms for one
// search of each kind, means of this process's user and system time).
func BenchmarkPassagesHybrid(b *testing.B) {
	for _, n := range passageSizes(b) {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			st := passageStore(b, n)
			r := graphrag.NewRetriever(st, embedder{})
			qs := newCorpus(n).queries()
			var took, text, vector []time.Duration
			var hybridCPU, textCPU, vectorCPU time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				q := qs[i%len(qs)]
				cpu, start := processCPU(), time.Now()
				res, err := r.Search(b.Context(), []graphrag.Query{{Text: q}}, 10)
				if err != nil {
					b.Fatal(err)
				}
				took, hybridCPU = append(took, time.Since(start)), hybridCPU+processCPU()-cpu
				if len(res) == 0 {
					b.Fatalf("%q found nothing", q)
				}
				b.StopTimer()
				cpu, start = processCPU(), time.Now()
				if _, err := st.SearchText(b.Context(), graphrag.KeywordQuery(q), 20); err != nil {
					b.Fatal(err)
				}
				text, textCPU = append(text, time.Since(start)), textCPU+processCPU()-cpu
				vec, _ := embedder{}.Embed(b.Context(), []string{q})
				cpu, start = processCPU(), time.Now()
				if _, err := st.SearchVector(b.Context(), vec[0], 20); err != nil {
					b.Fatal(err)
				}
				vector, vectorCPU = append(vector, time.Since(start)), vectorCPU+processCPU()-cpu
				b.StartTimer()
			}
			quantiles(b, "", took)
			quantiles(b, "text-", text)
			quantiles(b, "vector-", vector)
			if n := len(took); n > 0 && processCPU() > 0 {
				perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
				b.ReportMetric(perOp(hybridCPU), "cpu-ms/op")
				b.ReportMetric(perOp(textCPU), "text-cpu-ms")
				b.ReportMetric(perOp(vectorCPU), "vector-cpu-ms")
			}
		})
	}
}

// BenchmarkPassagesOpen opens and closes the passage corpus: the time Open takes (its quick_check
// included) with its CPU time (open-cpu-ms, the mean of this process's user and system time), and the Go
// heap the open store holds (HeapInuse after GC, against before Open).
func BenchmarkPassagesOpen(b *testing.B) {
	for _, n := range passageSizes(b) {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			path := passagesPath(b, n)
			var took []time.Duration
			var heap uint64
			var openCPU time.Duration
			for b.Loop() {
				before := heapInUse()
				cpu, start := processCPU(), time.Now()
				st, err := sqlite.Open(context.Background(), path, sqlite.Options{EmbedDim: dim, EmbedModel: "storebench"}, nil)
				if err != nil {
					b.Fatal(err)
				}
				took, openCPU = append(took, time.Since(start)), openCPU+processCPU()-cpu
				heap = max(heap, heapInUse()-before)
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			}
			quantiles(b, "open-", took)
			if len(took) > 0 && processCPU() > 0 {
				b.ReportMetric(float64(openCPU.Microseconds())/1000/float64(len(took)), "open-cpu-ms")
			}
			b.ReportMetric(float64(heap)/(1<<20), "MB-heap")
			if fi, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "MB-file")
			}
			if fi, err := os.Stat(path + ".vectors"); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "MB-index-file")
			}
		})
	}
}

// BenchmarkPassagesRecall measures recall@10 of SearchVector against the exact top 10, computed from
// every float32 vector of the file, over the corpus's 64 queries; each op is one pass of them.
func BenchmarkPassagesRecall(b *testing.B) {
	const k = 10
	for _, n := range passageSizes(b) {
		b.Run(fmt.Sprintf("chunks=%d", n), func(b *testing.B) {
			st := passageStore(b, n)
			qs := newCorpus(n).queries()
			vecs, _ := embedder{}.Embed(b.Context(), qs)
			exact := exactTop(b, passagesPath(b, n), vecs, k)
			var recall float64
			for b.Loop() {
				found := 0
				for i, v := range vecs {
					res, err := st.SearchVector(b.Context(), v, k)
					if err != nil {
						b.Fatal(err)
					}
					for _, c := range res {
						if slices.Contains(exact[i], c.ID) {
							found++
						}
					}
				}
				recall = float64(found) / float64(len(vecs)*k)
			}
			b.ReportMetric(recall, "recall@10")
		})
	}
}

// exactTop is, for each query, the IDs of the k chunks of the file at path with the highest cosine, from a
// scan of every vector.
func exactTop(b *testing.B, path string, queries [][]float32, k int) [][]string {
	db, err := sql.Open("sqlite", path+"?mode=ro&_pragma=query_only(1)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(b.Context(), `SELECT id, embedding FROM chunks WHERE embedding IS NOT NULL`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	type scored struct {
		id string
		s  float64
	}
	units := make([][]float64, len(queries))
	for i, q := range queries {
		units[i] = unit64(q)
	}
	tops := make([][]scored, len(queries))
	var id string
	var blob []byte
	vec := make([]float32, dim)
	for rows.Next() {
		if err := rows.Scan(&id, &blob); err != nil {
			b.Fatal(err)
		}
		for j := range vec {
			vec[j] = math.Float32frombits(uint32(blob[4*j]) | uint32(blob[4*j+1])<<8 | uint32(blob[4*j+2])<<16 | uint32(blob[4*j+3])<<24)
		}
		v := unit64(vec)
		for i, q := range units {
			var s float64
			for j := range q {
				s += q[j] * v[j]
			}
			t := tops[i]
			if len(t) == k && s <= t[k-1].s {
				continue
			}
			at, _ := slices.BinarySearchFunc(t, s, func(e scored, s float64) int {
				if e.s > s {
					return -1
				}
				return 1
			})
			t = slices.Insert(t, at, scored{id, s})
			tops[i] = t[:min(k, len(t))]
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	out := make([][]string, len(queries))
	for i, t := range tops {
		for _, e := range t {
			out[i] = append(out[i], e.id)
		}
	}
	return out
}

func unit64(v []float32) []float64 {
	out := make([]float64, len(v))
	var n float64
	for i, x := range v {
		out[i] = float64(x)
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	for i := range out {
		out[i] /= n
	}
	return out
}
