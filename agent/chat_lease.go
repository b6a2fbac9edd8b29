package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// DefaultLease is how long a process's hold on a turn it answers lasts without being renewed: a process
// that dies mid-answer has the turn shown as interrupted this long after, by any process sharing the store.
const DefaultLease = 15 * time.Second

// ErrStopped ends a run someone asked to stop (Chat.Stop); its turn is stored as cancelled.
var ErrStopped = errors.New("agent: the answer was stopped")

// ErrInterrupted ends a run its process gives up without anyone asking (the server shuts down): its turn
// is stored as interrupted, so people can ask again.
var ErrInterrupted = errors.New("agent: the server stopped before the answer was finished")

// errLeaseLost ends a run whose process could not renew its hold on the turn in time and found another
// holding it: that process may have stored it as interrupted meanwhile, so this one stops and stores it so
// too.
var errLeaseLost = errors.New("agent: this process lost its hold on the turn (the store was out of reach longer than the lease)")

// runLeases holds a lease, named after the turn, for every turn this process answers, renewed a few times
// a lease: a turn stored as running whose lease nobody holds was being answered by a process that is gone.
// A stop asked in another process reaches the run as a lease of its own, which the renewal reads.
type runLeases struct {
	store  graphrag.RunStore
	holder string // this process
	ttl    time.Duration

	mu    sync.Mutex
	local map[string]context.CancelCauseFunc // the runs of this process, by turn ID
}

// newRunLeases returns the leases of a store that keeps them, nil for one that does not.
func newRunLeases(store graphrag.ConversationStore) *runLeases {
	rs, ok := store.(graphrag.RunStore)
	if !ok {
		return nil
	}
	return &runLeases{store: rs, holder: graphrag.NewHolder("chat"), ttl: DefaultLease, local: map[string]context.CancelCauseFunc{}}
}

// WithLease sets how long the hold on a turn being answered lasts without renewal (DefaultLease when not
// set): a process that dies mid-answer has its turn shown as interrupted this long after. It returns c.
func (c *Chat) WithLease(ttl time.Duration) *Chat {
	if c.runs != nil && ttl > 0 {
		c.runs.ttl = ttl
	}
	return c
}

func runLease(id string) string  { return graphrag.RunLease(id) }
func stopLease(id string) string { return "stop:" + id }

// stopHolder holds the stop leases: any process may ask.
const stopHolder = "stop"

// take holds turn id before it is stored as running.
func (l *runLeases) take(ctx context.Context, id string) error {
	if l == nil {
		return nil
	}
	_, ok, err := l.store.TakeLease(ctx, runLease(id), l.holder, l.ttl)
	if err != nil {
		return fmt.Errorf("agent: hold turn %s: %w", id, err)
	}
	if !ok {
		return fmt.Errorf("agent: turn %s is being answered by another process", id)
	}
	return nil
}

// keep renews the hold on turn id every third of the lease while its run goes on, and ends the run with
// cancel when a stop was asked (ErrStopped) or another process took the hold (errLeaseLost: this one
// could not renew it within the lease). The returned function ends the renewal.
func (l *runLeases) keep(ctx context.Context, id string, cancel context.CancelCauseFunc) func() {
	if l == nil {
		return func() {}
	}
	l.mu.Lock()
	l.local[id] = cancel
	l.mu.Unlock()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(l.ttl / 3)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			// A renewal waits for the store at most a third of the lease. One that fails leaves the run going
			// (the store is slow or out of reach); only a lease another process took meanwhile ends it: that
			// process may have stored the turn as interrupted.
			rctx, stop := context.WithTimeout(ctx, l.ttl/3)
			_, ok, err := l.store.TakeLease(rctx, runLease(id), l.holder, l.ttl)
			var asked graphrag.Lease
			if err == nil && ok {
				asked, _ = l.store.Lease(rctx, stopLease(id))
			}
			stop()
			if err == nil && !ok {
				cancel(errLeaseLost)
				return
			}
			if asked.Held {
				cancel(ErrStopped)
				return
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		l.mu.Lock()
		delete(l.local, id)
		l.mu.Unlock()
	}
}

// takeOver holds turn id for this process when nobody does, or its holder is a process of this machine
// that is gone (graphrag.HolderGone: killed, so its lease need not run out first).
func (l *runLeases) takeOver(ctx context.Context, id string) (bool, error) {
	cur, ok, err := l.store.TakeLease(ctx, runLease(id), l.holder, l.ttl)
	if err == nil && !ok && graphrag.HolderGone(cur.Holder) {
		if err = l.store.ReleaseLease(ctx, runLease(id), cur.Holder); err == nil {
			_, ok, err = l.store.TakeLease(ctx, runLease(id), l.holder, l.ttl)
		}
	}
	return ok, err
}

// release ends the hold on a turn whose outcome is stored, and a stop asked for it.
func (l *runLeases) release(ctx context.Context, id string) {
	if l == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), persistTimeout)
	defer cancel()
	_ = l.store.ReleaseLease(ctx, runLease(id), l.holder)
	_ = l.store.ReleaseLease(ctx, stopLease(id), stopHolder)
}

// Stop ends the answer to turn id wherever it is being written: at once in this process, within a third
// of the lease in another sharing the store; its turn is then stored as cancelled. It reports whether the
// turn was being answered.
func (c *Chat) Stop(ctx context.Context, id string) (bool, error) {
	l := c.runs
	if l == nil {
		return false, nil
	}
	l.mu.Lock()
	cancel := l.local[id]
	l.mu.Unlock()
	if cancel != nil {
		cancel(ErrStopped)
		return true, nil
	}
	held, err := l.store.Lease(ctx, runLease(id))
	if err != nil || !held.Held {
		return false, err
	}
	if _, _, err := l.store.TakeLease(ctx, stopLease(id), stopHolder, l.ttl); err != nil {
		return false, fmt.Errorf("agent: stop turn %s: %w", id, err)
	}
	return true, nil
}

// Live reports whether turn id is being answered by a process that holds its lease and, when it runs on
// this machine, still runs.
func (c *Chat) Live(ctx context.Context, id string) (bool, error) {
	if c.runs == nil {
		return false, nil
	}
	l, err := c.runs.store.Lease(ctx, runLease(id))
	return l.Held && !graphrag.HolderGone(l.Holder), err
}

// Settle returns a turn as it stands. A turn stored as running whose lease nobody holds was being answered
// by a process that died (or lost the store for longer than the lease): it is stored as interrupted first,
// with the answer and the steps its stored events reached. Finished turns, and those a live process is
// answering, are returned as they are.
func (c *Chat) Settle(ctx context.Context, t graphrag.Turn) (graphrag.Turn, error) {
	l := c.runs
	if l == nil || t.Status != TurnRunning {
		return t, nil
	}
	if live, err := c.Live(ctx, t.ID); err != nil || live {
		return t, err
	}
	if ok, err := l.takeOver(ctx, t.ID); err != nil || !ok {
		return t, err // another process holds it now: it is answering, or settling it
	}
	defer l.release(ctx, t.ID)
	// Read it again: its run may have ended between the lease read and the take.
	cur, err := c.turn(ctx, t.ConversationID, t.ID)
	if err != nil {
		return t, fmt.Errorf("agent: settle turn %s: %w", t.ID, err)
	}
	if t = cur; t.Status != TurnRunning {
		return t, nil
	}
	events, err := RunEventsAfter(ctx, l.store, t.ID, 0)
	if err != nil {
		return t, err
	}
	evs := make([]Event, len(events))
	for i, e := range events {
		evs[i] = e.Event
	}
	answer, trace := Replay(evs)
	t.Answer, t.Status, t.Citations = answer, TurnInterrupted, nil
	if t.Trace, err = EncodeTrace(trace); err != nil {
		return t, err
	}
	if err := c.store.PutTurn(ctx, t); err != nil {
		return t, fmt.Errorf("agent: settle turn %s: %w", t.ID, err)
	}
	if err := l.store.DeleteRunEvents(ctx, t.ID); err != nil {
		return t, fmt.Errorf("agent: settle turn %s: %w", t.ID, err)
	}
	return t, nil
}

// SeqEvent is a stored event of a run with its number.
type SeqEvent struct {
	Seq int
	Event
}

// maxRunEventPages bounds the pages of events read at once: a run emits a few hundred events at most, and
// MaxRunEvents a page holds a thousand.
const maxRunEventPages = 100

// RunEventsAfter reads the stored events of run id numbered above after, in order.
func RunEventsAfter(ctx context.Context, store graphrag.RunStore, id string, after int) ([]SeqEvent, error) {
	var out []SeqEvent
	for range maxRunEventPages {
		page, err := store.RunEvents(ctx, id, after, graphrag.MaxRunEvents)
		if err != nil {
			return out, err
		}
		for _, r := range page {
			e, err := DecodeRunEvent(r.Data)
			if err != nil {
				return out, err
			}
			out = append(out, SeqEvent{Seq: r.Seq, Event: e})
			after = r.Seq
		}
		if len(page) < graphrag.MaxRunEvents {
			break
		}
	}
	return out, nil
}
