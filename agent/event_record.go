package agent

import (
	"sync"
	"time"
)

// recorder serialises events to the caller and keeps the trace (every event but tokens; the final
// answer's Result without its text, citations and trace).
type recorder struct {
	mu    sync.Mutex
	emit  func(Event)
	trace []Event
}

func (r *recorder) send(e Event) {
	if e.At.IsZero() {
		e.At = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e.Type != EventToken {
		t := e
		t.Result = nil
		if e.Result != nil { // the verdicts stay with the trace (a stored turn's badges); the rest is stored apart
			v := *e.Result
			v.Answer, v.Citations, v.Trace = "", nil, nil
			t.Result = &v
		}
		r.trace = append(r.trace, t)
	}
	if r.emit != nil {
		r.emit(e)
	}
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.trace...)
}
