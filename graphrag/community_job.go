package graphrag

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrSummarizing: a summary run is already going on.
var ErrSummarizing = errors.New("community summaries are already being written")

// SummaryJob runs one summary run at a time in the background, for a page that starts it and reads how
// far it is while it goes on. Runs live in the context the job was made with, not in the request's that
// starts them.
type SummaryJob struct {
	cs  *Communities
	ctx context.Context

	mu     sync.Mutex
	state  SummaryJobState
	cancel context.CancelFunc
	done   chan struct{}
}

// SummaryJobState is what a page shows of the current or last run.
type SummaryJobState struct {
	Running   bool
	Plan      SummaryPlan // what the run set out to do, estimated before its first call
	Progress  SummaryProgress
	Err       string // why the run stopped, when it did not finish
	Started   time.Time
	Finished  time.Time // zero while running, and before any run
	Cancelled bool
	// Lapsed: the run was started without being asked, by the refresher, for the communities that
	// changed when documents were added or removed and had a summary before (StartLapsed).
	Lapsed bool
}

// NewSummaryJob returns the background runner of cs's summaries; its runs stop when ctx ends.
func NewSummaryJob(ctx context.Context, cs *Communities) *SummaryJob {
	done := make(chan struct{})
	close(done)
	return &SummaryJob{cs: cs, ctx: ctx, done: done}
}

// Counts counts the stored communities and their summaries.
func (j *SummaryJob) Counts(ctx context.Context) (CommunityCounts, error) { return j.cs.Counts(ctx) }

// Estimate counts the communities and plans a run of at most max summaries without starting it: what a
// page shows before it asks whether to start. It calls no model.
func (j *SummaryJob) Estimate(ctx context.Context, max int) (SummaryPlan, CommunityCounts, error) {
	counts, err := j.cs.Counts(ctx)
	if err != nil {
		return SummaryPlan{}, CommunityCounts{}, err
	}
	plan, err := j.cs.Plan(ctx, max)
	return plan, counts, err
}

// Start plans a run of at most max summaries (Communities.Plan) and writes them in the background. It
// returns the plan at once, ErrSummarizing while another run goes on.
func (j *SummaryJob) Start(max int) (SummaryPlan, error) {
	return j.start(false, func(ctx context.Context) (SummaryPlan, error) { return j.cs.Plan(ctx, max) })
}

// StartLapsed is Start for the lapsed communities only (Communities.PlanLapsed): the summaries of
// communities that changed when documents were added or removed, rewritten because they had one. The
// run's state says so (Lapsed).
func (j *SummaryJob) StartLapsed(max int) (SummaryPlan, error) {
	return j.start(true, func(ctx context.Context) (SummaryPlan, error) { return j.cs.PlanLapsed(ctx, max) })
}

func (j *SummaryJob) start(lapsed bool, planned func(context.Context) (SummaryPlan, error)) (SummaryPlan, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state.Running {
		return SummaryPlan{}, ErrSummarizing
	}
	ctx := j.ctx
	plan, err := planned(ctx)
	if err != nil {
		return SummaryPlan{}, err
	}
	if plan.Calls == 0 {
		return plan, nil
	}
	runCtx, cancel := context.WithCancel(ctx)
	j.state = SummaryJobState{Running: true, Plan: plan, Progress: SummaryProgress{Total: plan.Calls}, Started: time.Now(),
		Lapsed: lapsed}
	j.cancel = cancel
	j.done = make(chan struct{})
	go j.run(runCtx, cancel, plan, j.done)
	return plan, nil
}

func (j *SummaryJob) run(ctx context.Context, cancel context.CancelFunc, plan SummaryPlan, done chan struct{}) {
	defer close(done)
	defer cancel()
	st, err := j.cs.Summarize(ctx, plan, func(p SummaryProgress) {
		j.mu.Lock()
		j.state.Progress = p
		j.mu.Unlock()
	})
	j.mu.Lock()
	defer j.mu.Unlock()
	j.state.Running = false
	j.state.Progress = st
	j.state.Finished = time.Now()
	if err != nil {
		j.state.Err = err.Error()
		j.state.Cancelled = errors.Is(err, context.Canceled)
	}
}

// Stop ends the running run, if any, after the call in flight; what was written is kept.
func (j *SummaryJob) Stop() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.state.Running && j.cancel != nil {
		j.cancel()
	}
}

// State reports the current or last run.
func (j *SummaryJob) State() SummaryJobState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.state
}

// Wait blocks until no run goes on or ctx ends.
func (j *SummaryJob) Wait(ctx context.Context) error {
	j.mu.Lock()
	done := j.done
	j.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("graphrag: wait for summaries: %w", context.Cause(ctx))
	}
}
