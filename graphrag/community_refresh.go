package graphrag

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Default delays of a CommunityRefresher: a batch of uploads is one recomputation, DefaultRefreshQuiet
// after its last document is read; while documents are still being read, a change waits at most
// DefaultRefreshMost.
const (
	DefaultRefreshQuiet = 3 * time.Second
	DefaultRefreshMost  = 5 * time.Minute
)

// CommunityRefresher keeps the stored communities in step with the documents: it listens to an
// ingester's progress and, after documents have finished ingesting or have been deleted or replaced,
// recomputes the communities (Communities.Refresh: no model call), once for a batch of such changes:
// when no document it heard of is still being read and none changed for the quiet delay, or when the
// first change not yet recomputed is the longest delay old. Communities that came out the same keep their
// summaries; the others wait for a new one, which the refresher asks for itself (WithResummaries) for
// those that took the place of summarized ones.
type CommunityRefresher struct {
	cs          *Communities
	quiet, most time.Duration
	log         *slog.Logger
	touch       chan struct{}
	job         *SummaryJob
	maxLapsed   int

	mu      sync.Mutex
	runs    int
	counts  CommunityCounts
	lastErr error
}

// NewCommunityRefresher returns a refresher of cs with the default delays; call Run to start it.
func NewCommunityRefresher(cs *Communities, logger *slog.Logger) *CommunityRefresher {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &CommunityRefresher{cs: cs, quiet: DefaultRefreshQuiet, most: DefaultRefreshMost, log: logger,
		touch: make(chan struct{}, 1)}
}

// WithDelays sets how long the refresher waits after the last change (quiet) and at most after the first
// (most). It returns r.
func (r *CommunityRefresher) WithDelays(quiet, most time.Duration) *CommunityRefresher {
	r.quiet, r.most = quiet, max(quiet, most)
	return r
}

// DefaultMaxLapsed bounds the summaries one automatic run rewrites (WithResummaries); the others wait for
// the next run.
const DefaultMaxLapsed = 20

// WithResummaries makes the refresher rewrite, after each recomputation, the summaries of the communities
// that changed and had one before (the summaries were asked for: no community is summarized that was not),
// through job, at most max of them a run (DefaultMaxLapsed when max <= 0): the run's model calls and tokens
// are estimated before its first call and shown while it runs as those of a run started by hand. When a
// run is going on already, the lapsed ones wait for its end. It returns r.
func (r *CommunityRefresher) WithResummaries(job *SummaryJob, max int) *CommunityRefresher {
	if max <= 0 {
		max = DefaultMaxLapsed
	}
	r.job, r.maxLapsed = job, max
	return r
}

// Touch reports a change of the graph that no ingest progress announces (an edit of an entity): the
// communities are recomputed as after a document.
func (r *CommunityRefresher) Touch() {
	select {
	case r.touch <- struct{}{}:
	default:
	}
}

// changesGraph reports whether a progress event ends a change of the graph: a document read (not a
// duplicate upload), failed (its extracted passages stay) or deleted, which a replace also announces.
func changesGraph(p Progress) bool {
	switch p.Status {
	case StatusDone:
		return !p.Duplicate
	case StatusFailed, StatusDeleted:
		return true
	}
	return false
}

// Run recomputes the communities once at its start (a store written before communities existed gets
// them), then after each batch of changes read from progress, until ctx ends or progress is closed.
// A failed recomputation is logged and tried again at the next change. Documents whose end it did not
// hear (a subscriber that falls behind loses events) only delay a recomputation to the longest delay.
func (r *CommunityRefresher) Run(ctx context.Context, progress <-chan Progress) {
	r.refresh(ctx)
	var timer *time.Timer
	var fire <-chan time.Time
	var first time.Time
	reading := map[string]bool{} // documents heard of that are still being read
	changed := func() {
		now := time.Now()
		if fire == nil {
			first = now
		}
		left := max(0, r.most-now.Sub(first))
		wait := left
		if len(reading) == 0 {
			wait = min(r.quiet, left)
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		fire = timer.C
	}
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case p, ok := <-progress:
			if !ok {
				if fire != nil {
					r.refresh(ctx)
				}
				return
			}
			if p.Status.Finished() {
				delete(reading, p.DocID)
			} else if len(reading) < maxTrackedReads {
				reading[p.DocID] = true
			}
			if changesGraph(p) || (fire != nil && len(reading) == 0) {
				changed()
			}
		case <-r.touch:
			changed()
		case <-fire:
			fire = nil
			r.refresh(ctx)
		}
	}
}

// maxTrackedReads bounds the documents a refresher remembers as being read.
const maxTrackedReads = 100_000

func (r *CommunityRefresher) refresh(ctx context.Context) {
	start := time.Now()
	counts, err := r.cs.Refresh(ctx)
	r.mu.Lock()
	r.runs++
	r.lastErr = err
	if err == nil {
		r.counts = counts
	}
	r.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("communities not recomputed", "err", err)
		}
		return
	}
	r.log.Info("communities recomputed", "communities", counts.Communities, "summarized", counts.Summarized,
		"lapsed", counts.Lapsed, "took", time.Since(start).Round(time.Millisecond))
	if r.job != nil && counts.Lapsed > 0 {
		r.resummarize(ctx)
	}
}

// resummarize starts the rewriting of the lapsed summaries, or waits for the run going on to end and
// recomputes then (which starts it).
func (r *CommunityRefresher) resummarize(ctx context.Context) {
	plan, err := r.job.StartLapsed(r.maxLapsed)
	switch {
	case errors.Is(err, ErrSummarizing):
		go func() {
			if r.job.Wait(ctx) == nil {
				r.Touch()
			}
		}()
	case err != nil:
		r.log.Warn("summaries of changed communities not planned", "err", err)
	case plan.Calls > 0:
		r.log.Info("rewriting the summaries of changed communities", "calls", plan.Calls, "tokens_estimated", plan.Tokens(),
			"left_for_later", plan.Left)
	}
}

// Refreshes reports how many recomputations have run and the counts after the last that succeeded.
func (r *CommunityRefresher) Refreshes() (int, CommunityCounts) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs, r.counts
}
