package storebench

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/graphrag"
)

// BenchmarkRetrievalCalls runs the passes of BenchmarkGraphFacts through a store that times each of its
// reads, and reports each read's median (METHOD-p50-ms) and how many a pass makes (METHOD/op): where a
// pass's time goes, the store's side of it.
func BenchmarkRetrievalCalls(b *testing.B) {
	forEachStore(b, func(b *testing.B, st graphrag.Store, c corpus) {
		timed := &timedStore{Store: st, took: map[string][]time.Duration{}}
		r := graphrag.NewRetriever(timed, embedder{})
		qs := c.queries()
		b.ResetTimer()
		for i := 0; b.Loop(); i++ {
			if _, err := r.Retrieve(b.Context(), []graphrag.Query{{Text: qs[i%len(qs)]}}, eval.AgentRetrieval); err != nil {
				b.Fatal(err)
			}
		}
		timed.mu.Lock()
		defer timed.mu.Unlock()
		for name, took := range timed.took {
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, name+"-p50-ms")
			b.ReportMetric(float64(len(took))/float64(b.N), name+"/op")
		}
	})
}

// timedStore records how long each read of a retrieval pass takes.
type timedStore struct {
	graphrag.Store
	mu   sync.Mutex
	took map[string][]time.Duration
}

func (s *timedStore) note(name string, start time.Time) {
	d := time.Since(start)
	s.mu.Lock()
	s.took[name] = append(s.took[name], d)
	s.mu.Unlock()
}

func (s *timedStore) SearchText(ctx context.Context, q string, k int) ([]graphrag.ScoredChunk, error) {
	defer s.note("SearchText", time.Now())
	return s.Store.SearchText(ctx, q, k)
}

func (s *timedStore) SearchVector(ctx context.Context, v []float32, k int) ([]graphrag.ScoredChunk, error) {
	defer s.note("SearchVector", time.Now())
	return s.Store.SearchVector(ctx, v, k)
}

func (s *timedStore) Subgraph(ctx context.Context, q graphrag.SubgraphQuery) (graphrag.Subgraph, error) {
	defer s.note("Subgraph", time.Now())
	return s.Store.Subgraph(ctx, q)
}

func (s *timedStore) Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error) {
	defer s.note("Chunks", time.Now())
	return s.Store.Chunks(ctx, ids)
}

func (s *timedStore) Entities(ctx context.Context, keys []string) ([]graphrag.Entity, error) {
	defer s.note("Entities", time.Now())
	return s.Store.Entities(ctx, keys)
}

func (s *timedStore) SearchEntities(ctx context.Context, q string, k int) ([]graphrag.Entity, error) {
	defer s.note("SearchEntities", time.Now())
	return s.Store.SearchEntities(ctx, q, k)
}

func (s *timedStore) Generation(ctx context.Context) (uint64, error) {
	defer s.note("Generation", time.Now())
	return s.Store.Generation(ctx)
}

func (s *timedStore) LinkCandidates(ctx context.Context, keys []string, q string, k int) ([]graphrag.Entity, []graphrag.Entity, error) {
	defer s.note("LinkCandidates", time.Now())
	return s.Store.LinkCandidates(ctx, keys, q, k)
}
