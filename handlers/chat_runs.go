package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"
)

// run is a question asked through the page and waiting for, or being answered over, its stream.
type run struct {
	id, conversationID, question string
	created                      time.Time

	// set under the registry's lock
	started  bool
	finished bool
	turnID   string
	cancel   context.CancelFunc
}

// runRegistry holds the runs of this process. A run is started by the first stream that claims it, so a
// page reloaded or a second tab never starts the same question twice; finished runs stay a while so a
// reconnecting stream receives the stored answer.
type runRegistry struct {
	mu      sync.Mutex
	runs    map[string]*run
	inline  int // answers written within their request (JSON API, forms without JavaScript)
	maxBusy int
}

const (
	runClaimWithin = 2 * time.Minute  // an unclaimed run is dropped after this
	runKeep        = 10 * time.Minute // a finished run is remembered this long
)

func newRunRegistry(maxBusy int) *runRegistry {
	return &runRegistry{runs: map[string]*run{}, maxBusy: maxBusy}
}

// add registers a question; ok is false when too many answers are being written already.
func (r *runRegistry) add(conversationID, question string) (*run, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.busyLocked() >= r.maxBusy {
		return nil, false
	}
	x := &run{id: newID(), conversationID: conversationID, question: question, created: time.Now()}
	r.runs[x.id] = x
	return x, true
}

// acquire takes a place for an answer written within its request, under the same cap as the page's
// runs; ok is false when every place is taken, and release gives it back.
func (r *runRegistry) acquire() (release func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.busyLocked() >= r.maxBusy {
		return nil, false
	}
	r.inline++
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.inline--
			r.mu.Unlock()
		})
	}, true
}

// busyLocked counts the answers being written or waiting for their stream, dropping expired runs.
func (r *runRegistry) busyLocked() int {
	busy := r.inline
	now := time.Now()
	for id, x := range r.runs {
		switch {
		case !x.started && now.Sub(x.created) > runClaimWithin, x.finished && now.Sub(x.created) > runKeep:
			delete(r.runs, id)
		case !x.finished:
			busy++
		}
	}
	return busy
}

// claimState is what a stream finds for a run ID.
type claimState int

const (
	runUnknown  claimState = iota // never added, expired, or from before a restart
	runClaimed                    // the caller now answers it
	runBusy                       // another stream is answering it
	runFinished                   // answered: turnID names the stored turn
)

func (r *runRegistry) claim(id string, cancel context.CancelFunc) (run, claimState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.runs[id]
	switch {
	case !ok:
		return run{}, runUnknown
	case x.finished:
		return *x, runFinished
	case x.started:
		return *x, runBusy
	}
	x.started, x.cancel = true, cancel
	return *x, runClaimed
}

func (r *runRegistry) finish(id, turnID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if x, ok := r.runs[id]; ok {
		x.finished, x.turnID, x.cancel = true, turnID, nil
	}
}

// stop cancels a run being answered and reports whether there was one.
func (r *runRegistry) stop(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.runs[id]
	if !ok || x.cancel == nil {
		return false
	}
	x.cancel()
	return true
}

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
