package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/graphrag"
)

// TurnInterrupted is the status of a turn whose run stopped with the process writing it (killed, or cut
// off from the store longer than its lease): its answer and trace are as far as its stored events got.
const TurnInterrupted = "interrupted"

// EncodeRunEvent is an event as a run's log stores it: the final answer's Result without its trace, which
// the stored turn holds.
func EncodeRunEvent(e Event) ([]byte, error) {
	if e.Result != nil && e.Result.Trace != nil {
		r := *e.Result
		r.Trace = nil
		e.Result = &r
	}
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("agent: encode event: %w", err)
	}
	return b, nil
}

// DecodeRunEvent reads an event EncodeRunEvent wrote.
func DecodeRunEvent(b []byte) (Event, error) {
	var e Event
	if err := json.Unmarshal(b, &e); err != nil {
		return Event{}, fmt.Errorf("agent: decode event: %w", err)
	}
	return e, nil
}

// Replay is what a run's events say so far: the answer streamed since its last restart, and the trace as a
// Result keeps it (every event but tokens and places in line; the final answer's Result without its text
// and citations).
func Replay(events []Event) (answer string, trace []Event) {
	var b strings.Builder
	for _, e := range events {
		switch e.Type {
		case EventToken:
			b.WriteString(e.Delta)
		case EventAnswerReset:
			b.Reset()
		}
		if t, ok := traceOf(e); ok {
			trace = append(trace, t)
		}
	}
	return b.String(), trace
}

// traceOf is an event as the trace keeps it; tokens and places in line are not kept.
func traceOf(e Event) (Event, bool) {
	if e.Type == EventToken || e.Type == EventQueued {
		return Event{}, false
	}
	if e.Result != nil { // the verdicts stay with the trace (a stored turn's badges); the rest is stored apart
		v := *e.Result
		v.Answer, v.Citations, v.Trace = "", nil, nil
		e.Result = &v
	}
	return e, true
}

// EventLog writes a run's events to the store as they happen, numbered from 1 in order, so that a stream
// in any process sharing the store can follow the run and one that reconnects goes on after the last
// event it received. Add never waits for the store: Flush writes what was added since the last write, in
// one transaction, consecutive tokens joined into one event and consecutive places in line reduced to
// the last.
type EventLog struct {
	store graphrag.RunStore
	id    string

	flushing sync.Mutex // one Flush at a time
	mu       sync.Mutex
	pending  []Event
	unsent   []graphrag.RunEvent // numbered, not stored yet: a failed write tries them again as they are
	seq      int                 // the last number given
}

// NewEventLog returns the log of the run id (its turn's ID).
func NewEventLog(store graphrag.RunStore, id string) *EventLog {
	return &EventLog{store: store, id: id}
}

// Add queues an event for the next Flush.
func (l *EventLog) Add(e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := len(l.pending); n > 0 {
		last := &l.pending[n-1]
		switch {
		case e.Type == EventToken && last.Type == EventToken:
			last.Delta += e.Delta
			return
		case e.Type == EventQueued && last.Type == EventQueued:
			*last = e
			return
		}
	}
	l.pending = append(l.pending, e)
}

// Pending reports whether events wait for a Flush.
func (l *EventLog) Pending() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending) > 0 || len(l.unsent) > 0
}

// Flush stores the events added since the last write and returns the number of the last one stored.
// After an error the same events are written again by the next Flush, with the same numbers.
func (l *EventLog) Flush(ctx context.Context) (int, error) {
	l.flushing.Lock()
	defer l.flushing.Unlock()
	l.mu.Lock()
	for _, e := range l.pending {
		b, err := EncodeRunEvent(e)
		if err != nil {
			l.mu.Unlock()
			return 0, err
		}
		l.seq++
		l.unsent = append(l.unsent, graphrag.RunEvent{Seq: l.seq, Data: b})
	}
	l.pending = l.pending[:0]
	batch, last := l.unsent, l.seq
	l.mu.Unlock()
	if len(batch) == 0 {
		return last, nil
	}
	if err := l.store.AppendRunEvents(ctx, l.id, batch); err != nil {
		return 0, err
	}
	l.mu.Lock()
	l.unsent = l.unsent[len(batch):]
	l.mu.Unlock()
	return last, nil
}
