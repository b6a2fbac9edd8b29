package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// parkedAsk is a question asked through the page and waiting for, or being answered over, its stream (the
// agent's loop that answers it is the agent's run; this is only its place in the page's queue).
type parkedAsk struct {
	id, conversationID, question string
	created                      time.Time
	// scope is whose question it is: only a stream or a stop of the same scope finds it.
	scope graphrag.ConversationScope

	// set under the registry's lock
	started  bool
	finished bool
	turnID   string
	cancel   context.CancelFunc
}

// askRegistry holds the parked questions of this process and the places of answers written within their
// request. A parked question is answered by the first stream that claims it, so a page reloaded or a
// second tab never starts the same question twice; answered ones stay a while so a reconnecting stream
// receives the stored answer.
type askRegistry struct {
	mu      sync.Mutex
	asks    map[string]*parkedAsk
	inline  int // answers written within their request (JSON API, forms without JavaScript)
	maxBusy int
}

const (
	askClaimWithin = 2 * time.Minute  // an unclaimed question is dropped after this
	askKeep        = 10 * time.Minute // an answered question is remembered this long
)

func newAskRegistry(maxBusy int) *askRegistry {
	return &askRegistry{asks: map[string]*parkedAsk{}, maxBusy: maxBusy}
}

// add registers a question asked with scope; ok is false when too many answers are being written already.
func (r *askRegistry) add(conversationID, question string, scope graphrag.ConversationScope) (*parkedAsk, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.busyLocked() >= r.maxBusy {
		return nil, false
	}
	x := &parkedAsk{id: newID(), conversationID: conversationID, question: question, created: time.Now(), scope: scope}
	r.asks[x.id] = x
	return x, true
}

// acquire takes a place for an answer written within its request, under the same cap as the page's
// parked questions; ok is false when every place is taken, and release gives it back.
func (r *askRegistry) acquire() (release func(), ok bool) {
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

// busyLocked counts the answers being written or waiting for their stream, dropping expired questions.
func (r *askRegistry) busyLocked() int {
	busy := r.inline
	now := time.Now()
	for id, x := range r.asks {
		switch {
		case !x.started && now.Sub(x.created) > askClaimWithin, x.finished && now.Sub(x.created) > askKeep:
			delete(r.asks, id)
		case !x.finished:
			busy++
		}
	}
	return busy
}

// claimState is what a stream finds for a parked question's ID.
type claimState int

const (
	askUnknown  claimState = iota // never added, expired, or from before a restart
	askClaimed                    // the caller now answers it
	askBusy                       // another stream is answering it
	askFinished                   // answered: turnID names the stored turn
)

// claim starts answering the question id for a stream of scope; another scope's question is unknown to it.
func (r *askRegistry) claim(id string, scope graphrag.ConversationScope, cancel context.CancelFunc) (parkedAsk, claimState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.asks[id]
	switch {
	case !ok || x.scope != scope:
		return parkedAsk{}, askUnknown
	case x.finished:
		return *x, askFinished
	case x.started:
		return *x, askBusy
	}
	x.started, x.cancel = true, cancel
	return *x, askClaimed
}

func (r *askRegistry) finish(id, turnID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if x, ok := r.asks[id]; ok {
		x.finished, x.turnID, x.cancel = true, turnID, nil
	}
}

// stop cancels the answer being written to a parked question of scope and reports whether there was one.
func (r *askRegistry) stop(id string, scope graphrag.ConversationScope) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	x, ok := r.asks[id]
	if !ok || x.scope != scope || x.cancel == nil {
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
