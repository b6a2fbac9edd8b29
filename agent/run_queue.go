package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/llm"
)

// errOutOfTime ends a run that used up its time (AGENT_MAX_RUN_TIME plus its time in line).
var errOutOfTime = errors.New("agent: the time allowed for one question ran out")

// placed reports the run's place in line for the model while it waits, and that the wait is over.
func (r *run) placed(p llm.Place) {
	q := &Queue{Waiting: p.Waiting, Ahead: p.Ahead}
	summary := queueSummary(p.Ahead)
	r.mu.Lock()
	switch {
	case !p.Waiting:
		q.Waited = p.Waited
		summary = "Waited " + p.Waited.Round(100*time.Millisecond).String() + " in line for the model"
		r.queued += p.Waited
		r.waitStart = time.Time{}
	case r.waitStart.IsZero():
		r.waitStart = time.Now()
	}
	r.mu.Unlock()
	r.rec.send(Event{Type: EventQueued, Summary: summary, Queue: q})
}

// startClock ends the run with cancel once its time is up: MaxRunTime, plus the time it spent in line
// for a busy model (that is not the question's fault, and people see the line move instead of an answer
// cut short), plus at most another MaxRunTime in all so that a run still ends.
func (r *run) startClock(cancel context.CancelCauseFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deadline = time.AfterFunc(r.cfg.MaxRunTime, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		queued := r.queued
		if !r.waitStart.IsZero() {
			queued += time.Since(r.waitStart)
		}
		if left := r.cfg.MaxRunTime + min(queued, r.cfg.MaxRunTime) - time.Since(r.start); left > 0 && !r.over {
			r.deadline.Reset(left)
			return
		}
		cancel(errOutOfTime)
	})
}

// end stops the run's clock and its events: it has returned.
func (r *run) end() {
	r.mu.Lock()
	r.over = true
	r.deadline.Stop()
	r.mu.Unlock()
	r.rec.close()
}

func queueSummary(ahead int) string {
	switch ahead {
	case 0:
		return "The model is busy; you are next in line"
	case 1:
		return "The model is busy: 1 ahead of you in line"
	}
	return fmt.Sprintf("The model is busy: %d ahead of you in line", ahead)
}
