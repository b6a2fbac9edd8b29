package graphrag_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestSummaryJobStop: a background run refuses a second start, reports its progress, and stops when asked
// after the call in flight, with what it wrote stored and counted.
func TestSummaryJobStop(t *testing.T) {
	slow := func(req llmtest.Request) (llmtest.Reply, bool) {
		rp, ok := summaryModel(req)
		rp.Delay = 150 * time.Millisecond
		return rp, ok
	}
	env, cs := demoCommunities(t, slow)
	ctx := context.Background()
	job := graphrag.NewSummaryJob(ctx, cs)
	plan, counts, err := job.Estimate(ctx, 100)
	if err != nil || plan.Calls < 4 || plan.Calls != counts.Communities || summaryCalls(env.model) != 0 {
		t.Fatalf("estimate %+v %+v %v, %d calls: want one call a community and no call made", plan, counts, err, summaryCalls(env.model))
	}
	if _, err := job.Start(100); err != nil {
		t.Fatal(err)
	}
	if _, err := job.Start(100); !errors.Is(err, graphrag.ErrSummarizing) {
		t.Errorf("a second start: %v, want ErrSummarizing", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for job.State().Progress.Done < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	job.Stop()
	if err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	st := job.State()
	if st.Running || !st.Cancelled || !strings.Contains(st.Err, "stopped") || st.Progress.Done >= plan.Calls || st.Finished.IsZero() {
		t.Fatalf("state after Stop %+v: want a stopped run short of its %d summaries", st, plan.Calls)
	}
	after, err := cs.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Summarized < 2 || after.Summarized > st.Progress.Done+1 {
		t.Errorf("%d summaries stored, the run reported %d done when it stopped", after.Summarized, st.Progress.Done)
	}
}
