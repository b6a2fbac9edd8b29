package handlers

import (
	"context"
	"time"

	"github.com/hopwise/hopwise/agent"
)

// runSink is what a stream does with the stored events of a run it follows (followRun). event is called
// for each event, in order; caughtUp, when set, once the events stored when the stream opened were handed
// on; flush, when set, every flushEvery; ping every keepAlive. An error from any means the client is gone.
type runSink struct {
	event      func(agent.SeqEvent) error
	caughtUp   func() error
	flush      func() error
	flushEvery time.Duration
	ping       func() error
}

// followRun hands the stored events of the running turn id numbered above after to sink, as they are
// written, until the run ends: then every event it stored has been handed on and followRun reports true.
// It reports false when the client left (ctx ended, or a sink call failed). Meanwhile it renews the lease
// that says a stream follows the run (chat_runs.go), from its own goroutine so that a slow read does not
// delay it. The run may be this process's, whose writes wake the stream, or another's, polled every
// followPoll: streams of the page, the JSON API, the OpenAI-compatible API and MCP all follow runs so.
func (s *server) followRun(ctx context.Context, id string, after int, sink runSink) bool {
	s.follow(ctx, id)
	defer s.runs.attach(id)()
	go s.keepFollowing(ctx, id)
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	poll := time.NewTicker(followPoll)
	defer poll.Stop()
	var flush <-chan time.Time
	if sink.flush != nil {
		tick := time.NewTicker(sink.flushEvery)
		defer tick.Stop()
		flush = tick.C
	}
	seq := after
	read := func() bool {
		evs, err := agent.RunEventsAfter(ctx, s.Store, id, seq)
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("chat: read the run's events", "turn", id, "err", err)
		}
		for _, e := range evs {
			seq = e.Seq
			if sink.event(e) != nil {
				return false
			}
		}
		return true
	}
	for caughtUp := false; ; {
		if !read() {
			return false
		}
		if !caughtUp {
			caughtUp = true
			if sink.caughtUp != nil && sink.caughtUp() != nil {
				return false
			}
		}
		wake, _ := s.runs.wait(id)
		check := false
		select {
		case <-ctx.Done():
			return false
		case <-wake:
			_, local := s.runs.wait(id)
			check = !local // this process's run just ended
		case <-poll.C:
			check = wake == nil
		case <-ping.C:
			if sink.ping() != nil {
				return false
			}
		case <-flush:
			if sink.flush() != nil {
				return false
			}
		}
		if !check {
			continue
		}
		if live, err := s.Chat.Live(ctx, id); err != nil || live {
			continue
		}
		// The run ended: what it wrote last was stored before its turn.
		return read() && ctx.Err() == nil
	}
}

// keepFollowing renews the lease that says a stream follows turn id until ctx ends.
func (s *server) keepFollowing(ctx context.Context, id string) {
	renew := time.NewTicker(max(s.Limits.ReconnectGrace/3, 10*time.Millisecond))
	defer renew.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			s.follow(ctx, id)
		}
	}
}
