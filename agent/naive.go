package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Naive is the evaluation baseline: one hybrid search for the question and one generation from the top K
// passages, without decision, grading, graph, audit or loop. History is ignored.
func (a *Agent) Naive(ctx context.Context, in Input, emit func(Event)) (Result, error) {
	if strings.TrimSpace(in.Question) == "" {
		return Result{}, ErrEmptyQuestion
	}
	r := a.newRun(in, emit)
	return r.execute(ctx, r.naive)
}

func (r *run) naive(ctx context.Context) error {
	r.started(NodeRetrieve, "Searching your documents")
	chunks, err := r.a.retriever.Search(ctx, []graphrag.Query{{Text: r.st.question}}, r.cfg.K)
	if err != nil {
		return fmt.Errorf("agent: search: %w", err)
	}
	srcs := make([]source, len(chunks))
	for i, c := range chunks {
		srcs[i] = source{kind: KindChunk, chunk: c.Chunk}
	}
	r.st.keep(srcs)
	r.finished(NodeRetrieve, retrieveSummary(r.st.queries, srcs, nil))
	if len(srcs) == 0 {
		r.notFound()
		return nil
	}
	return r.generate(ctx)
}
