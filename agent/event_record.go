package agent

import (
	"sync"
	"time"
)

// recorder serialises events to the caller and keeps the trace (every event but tokens and places in
// line; the final answer's Result without its text, citations and trace). Once closed it sends nothing:
// the run has returned.
type recorder struct {
	mu     sync.Mutex
	emit   func(Event)
	trace  []Event
	closed bool
}

func (r *recorder) send(e Event) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	if t, ok := traceOf(e); ok {
		r.trace = append(r.trace, t)
	}
	if r.emit != nil {
		r.emit(e)
	}
}

// close ends the sending; a report of the model's queue that comes late is dropped.
func (r *recorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.trace...)
}
