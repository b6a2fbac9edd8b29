package handlers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// A question asked through the page is answered apart from the requests: the ask stores its turn, the
// first stream that reaches a process claims it there and starts its run, and the run writes its events to
// the store as they happen (agent.EventLog). Every stream, in any process sharing the store, reads them
// from there: a stream that reconnects (Last-Event-ID) or a reloaded page goes on where it was. The run
// goes on while a stream follows it, or for ReconnectGrace after the last one left; then it is cancelled,
// as a closed tab cancels it. A stream of the run's own process counts as following it whatever the store
// says: a store that stalls longer than ReconnectGrace (a loaded machine) delays the streams' renewals of
// the lease, and must not end an answer somebody is reading.

const (
	// eventFlushEvery is how often a run's new events are written: each write is one transaction of
	// all the events since the last, tokens joined.
	eventFlushEvery = 100 * time.Millisecond
	// followPoll is how often a stream looks for events a run in another process wrote, and whether the
	// run still lives; a run of this process wakes its streams at each write.
	followPoll = 250 * time.Millisecond
	// eventsLinger is how long a finished run's events stay for the streams still reading them.
	eventsLinger = 5 * time.Second
	// runShutdownGrace is how long the answers being written may go on once the server is asked to stop;
	// then they are stored as interrupted (with a retry button).
	runShutdownGrace = 15 * time.Second
)

// errNobodyFollows ends a run whose streams all left and none came back within ReconnectGrace.
var errNobodyFollows = errors.New("handlers: the answer's page was closed")

// watchLease names the lease the streams following turn id renew, all as one holder (streamHolder): while
// any renews it, the run goes on.
func watchLease(id string) string { return "watch:" + id }

const streamHolder = "streams"

// pageRuns are the runs of this process, so that its streams wake at each write instead of polling.
type pageRuns struct {
	mu     sync.Mutex
	runs   map[string]*pageRun
	pruned time.Time // when this process last pruned what ended runs left in the store
}

// pruneEvery is how often, at most, a process removes what ended and abandoned runs left in the store
// (graphrag.RunStore.PruneRuns): the events of runs whose process died more than graphrag.RunRetention
// ago, and of ended runs whose process stopped before it deleted them, and leases that ran out as long ago.
const pruneEvery = time.Hour

// pruneDue reports whether this process should prune now, and if so counts it as done.
func (p *pageRuns) pruneDue(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Sub(p.pruned) < pruneEvery {
		return false
	}
	p.pruned = now
	return true
}

// pruneRuns removes, at most every pruneEvery, what ended and abandoned runs left in the store.
func (s *server) pruneRuns() {
	now := time.Now()
	if !s.runs.pruneDue(now) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	events, leases, err := s.Store.PruneRuns(ctx, now.Add(-graphrag.RunRetention))
	switch {
	case err != nil:
		s.Logger.Warn("chat: prune the events of ended runs", "err", err)
	case events > 0 || leases > 0:
		s.Logger.Info("chat: pruned what ended runs left", "events", events, "leases", leases)
	}
}

type pageRun struct {
	mu        sync.Mutex
	changed   chan struct{} // closed and replaced at each write, and when the run ends
	followers int           // the streams of this process following the run now
}

func newPageRuns() *pageRuns {
	return &pageRuns{runs: map[string]*pageRun{}}
}

// add registers the run of turn id unless this process has it already (two tabs streaming at once).
func (p *pageRuns) add(id string) (*pageRun, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.runs[id] != nil {
		return nil, false
	}
	r := &pageRun{changed: make(chan struct{})}
	p.runs[id] = r
	return r, true
}

func (p *pageRuns) remove(id string, r *pageRun) {
	p.mu.Lock()
	delete(p.runs, id)
	p.mu.Unlock()
	r.signal()
}

// wait returns a channel closed at the next write of run id, and whether the run is this process's.
func (p *pageRuns) wait(id string) (<-chan struct{}, bool) {
	p.mu.Lock()
	r := p.runs[id]
	p.mu.Unlock()
	if r == nil {
		return nil, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed, true
}

// attach counts a stream of this process as following run id, when the run is this process's, until the
// returned function is called.
func (p *pageRuns) attach(id string) (detach func()) {
	p.mu.Lock()
	r := p.runs[id]
	p.mu.Unlock()
	if r == nil {
		return func() {}
	}
	r.mu.Lock()
	r.followers++
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.followers--
			r.mu.Unlock()
		})
	}
}

// followed reports whether a stream of this process follows the run.
func (r *pageRun) followed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.followers > 0
}

func (r *pageRun) signal() {
	r.mu.Lock()
	defer r.mu.Unlock()
	close(r.changed)
	r.changed = make(chan struct{})
}

// follow renews the lease that says a stream follows turn id, waiting for the store at most a third of
// ReconnectGrace (the next renewal tries again).
func (s *server) follow(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(ctx, max(s.Limits.ReconnectGrace/3, 10*time.Millisecond))
	defer cancel()
	if _, _, err := s.Store.TakeLease(ctx, watchLease(id), streamHolder, s.Limits.ReconnectGrace); err != nil && ctx.Err() == nil {
		s.Logger.Warn("chat: renew the stream's lease", "turn", id, "err", err)
	}
}

// startRun claims an asked turn for this process and starts answering it, unless every place for an
// answer is taken (busy) or another stream claimed it first (then it is returned as it is now).
func (s *server) startRun(ctx context.Context, t graphrag.Turn) (turn graphrag.Turn, busy bool, err error) {
	r, fresh := s.runs.add(t.ID)
	if !fresh { // another stream of this process is starting it: follow that run
		t.Status = agent.TurnRunning
		return t, false, nil
	}
	release, ok := s.asks.claim(t.ID)
	if !ok {
		s.runs.remove(t.ID, r)
		return t, true, nil
	}
	s.follow(ctx, t.ID) // before the run checks that someone follows it
	t, claimed, err := s.Chat.Claim(ctx, t)
	if err != nil || !claimed {
		release()
		s.runs.remove(t.ID, r)
		return t, false, err
	}
	go func() {
		defer release()
		defer s.runs.remove(t.ID, r)
		s.runPage(t, r)
	}()
	return t, false, nil
}

// runPage answers a claimed turn, writing its events to the store as they happen, until the run ends,
// nobody has followed it for ReconnectGrace, or the server shuts down.
func (s *server) runPage(t graphrag.Turn, r *pageRun) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		select {
		case <-s.Closing:
		case <-ctx.Done():
			return
		}
		select {
		case <-time.After(runShutdownGrace):
			cancel(agent.ErrInterrupted)
		case <-ctx.Done():
		}
	}()
	log := agent.NewEventLog(s.Store, t.ID)
	flush := func() {
		fctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer stop()
		if _, err := log.Flush(fctx); err != nil {
			s.Logger.Warn("chat: store the run's events (tried again at the next write)", "turn", t.ID, "err", err)
			return
		}
		r.signal()
	}
	emit := func(ev agent.Event) {
		log.Add(ev)
		if ev.Type == agent.EventAnswer || ev.Type == agent.EventError {
			flush() // stored before the turn is, so a stream that sees the run end has read all of it
		}
	}
	out := make(chan struct{})
	go func() {
		defer close(out)
		if _, _, err := s.Chat.Answer(ctx, t, emit); err != nil && ctx.Err() == nil {
			s.Logger.Warn("chat: run failed", "turn", t.ID, "err", err)
		}
	}()
	tick := time.NewTicker(eventFlushEvery)
	defer tick.Stop()
	watch := time.NewTicker(max(s.Limits.ReconnectGrace/3, 10*time.Millisecond))
	defer watch.Stop()
	unfollowed := 0 // the checks in a row that found nobody following
	for {
		select {
		case <-out:
			if log.Pending() {
				flush()
			}
			// The turn holds what the events said; the streams reading them read the turn next.
			time.AfterFunc(eventsLinger, func() {
				dctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
				defer stop()
				if err := s.Store.DeleteRunEvents(dctx, t.ID); err != nil {
					s.Logger.Warn("chat: delete the events of a finished run", "turn", t.ID, "err", err)
				}
				_ = s.Store.ReleaseLease(dctx, watchLease(t.ID), streamHolder)
				s.pruneRuns()
			})
			return
		case <-tick.C:
			if log.Pending() {
				flush()
			}
		case <-watch.C:
			// Nobody follows when no stream of this process does and the streams' lease ran out at two
			// checks in a row: a stream of another process whose renewal waited for a stalled store renews
			// it as soon as the store answers, which the second check sees.
			if r.followed() {
				unfollowed = 0
				continue
			}
			if l, err := s.Store.Lease(ctx, watchLease(t.ID)); err == nil && !l.Held {
				if unfollowed++; unfollowed >= 2 {
					cancel(errNobodyFollows)
				}
			} else {
				unfollowed = 0
			}
		}
	}
}

func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
