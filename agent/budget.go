package agent

import "time"

// Budget shares: a retrieval pass needs a transform, at least one grading batch, a generation and an audit.
const (
	reserveCalls = 2 // generation and audit after grading
	passCalls    = 4 // transform, grading, generation, audit
)

// finishCalls is what finish may need once the passes end: a revision and its audit.
func (r *run) finishCalls() int {
	if r.cfg.MaxRevisions == 0 || !r.cfg.Techniques.Audit {
		return 0
	}
	return 2
}

// callsLeft is how many more model calls the budget allows: the call cap, the token cap at the run's
// average tokens per call so far, and the wall-time cap at its average time per round so far (time in line
// for a busy model counts for neither), whichever is tightest. Planning in calls lets every step check one
// number before it starts.
func (r *run) callsLeft() int {
	u := r.meter.Snapshot()
	left := r.cfg.MaxLLMCalls - u.Calls
	used := u.PromptTokens + u.CompletionTokens
	if used >= r.cfg.MaxTokens {
		return 0
	}
	if u.Calls > 0 {
		left = min(left, (r.cfg.MaxTokens-used)*u.Calls/used)
	}
	r.mu.Lock()
	rounds, queued := r.rounds, r.queued
	r.mu.Unlock()
	if elapsed := time.Since(r.start) - queued; rounds > 0 && elapsed > 0 {
		left = min(left, int((r.cfg.MaxRunTime-elapsed)*time.Duration(rounds)/elapsed))
	}
	return max(left, 0)
}
