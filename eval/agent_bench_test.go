package eval_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// BenchmarkAgentQuestion is the orchestration cost of one question with a model that answers at once: the
// dev-set questions in turn through the loop (and the naive baseline for scale) over the demo corpus.
// model-ms/op is the time the scripted reader spent composing replies; overhead-ms/op is the rest: the
// agent's own work, the store, HTTP and JSON to and from the model server.
func BenchmarkAgentQuestion(b *testing.B) {
	set := sampleSet(b)
	var err error
	var modelNanos atomic.Int64
	srv := llmtest.New(b)
	srv.Handle(graphragtest.Extraction)
	srv.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		start := time.Now()
		defer func() { modelNanos.Add(int64(time.Since(start))) }()
		return evaltest.Reader(req)
	})
	client := evaltest.Client(srv)
	store := demoStore(b, client)
	retriever := graphrag.NewRetriever(store, client)
	for _, p := range []string{eval.Advanced, eval.Naive} {
		b.Run(p, func(b *testing.B) {
			ag := agent.New(client, retriever, nil, nil, agent.Config{}, nil)
			modelNanos.Store(0)
			calls := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				in := agent.Input{Question: set[i%len(set)].Question}
				var res agent.Result
				if p == eval.Naive {
					res, err = ag.Naive(b.Context(), in, nil)
				} else {
					res, err = ag.Run(b.Context(), in, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
				calls += res.Usage.Calls
			}
			perOp := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
			elapsed := b.Elapsed()
			model := time.Duration(modelNanos.Load())
			b.ReportMetric(float64(calls)/float64(b.N), "calls/op")
			b.ReportMetric(perOp(model), "model-ms/op")
			b.ReportMetric(perOp(elapsed-model), "overhead-ms/op")
		})
	}
}
