package handlers

import (
	"sync"
	"time"
)

// askRegistry caps the answers this process writes at once: those of the page's questions it claimed
// (chat_runs.go), those written within their request (JSON API, forms without JavaScript), and the page's
// questions asked here whose stream has not claimed them yet. A question's turn is stored when it is
// asked; the first stream that claims it, in whichever process, answers it. A question asked here keeps
// its place for askReserve, so a burst of questions is refused before any costs anything; when its stream
// reaches this process the place becomes the answer's, and when it reaches another the place lapses.
type askRegistry struct {
	mu       sync.Mutex
	reserved map[string]time.Time // turn ID -> when it was asked, until a stream here claims it
	busy     int                  // answers being written in this process
	maxBusy  int
}

// askReserve is how long a question asked here keeps its place for its stream: a page opens it at once.
const askReserve = 15 * time.Second

func newAskRegistry(maxBusy int) *askRegistry {
	return &askRegistry{reserved: map[string]time.Time{}, maxBusy: maxBusy}
}

// reserve keeps a place for the question of turn id until its stream claims it; ok is false when every
// place is taken.
func (r *askRegistry) reserve(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.usedLocked() >= r.maxBusy {
		return false
	}
	r.reserved[id] = time.Now()
	return true
}

// unreserve gives back the place of a question that could not be stored.
func (r *askRegistry) unreserve(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.reserved, id)
}

// claim takes a place for answering turn id: the one its question kept when it was asked here, or a free
// one; ok is false when every place is taken, and release gives it back.
func (r *askRegistry) claim(id string) (release func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, mine := r.reserved[id]; mine {
		delete(r.reserved, id)
	} else if r.usedLocked() >= r.maxBusy {
		return nil, false
	}
	return r.placeLocked(), true
}

// acquire takes a place for an answer written within its request, under the same cap; ok is false when
// every place is taken, and release gives it back.
func (r *askRegistry) acquire() (release func(), ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.usedLocked() >= r.maxBusy {
		return nil, false
	}
	return r.placeLocked(), true
}

func (r *askRegistry) placeLocked() func() {
	r.busy++
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.busy--
			r.mu.Unlock()
		})
	}
}

// usedLocked counts the answers being written and the places kept, dropping those that lapsed.
func (r *askRegistry) usedLocked() int {
	now := time.Now()
	for id, at := range r.reserved {
		if now.Sub(at) > askReserve {
			delete(r.reserved, id)
		}
	}
	return r.busy + len(r.reserved)
}
