package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// answerOutcome is how an answer ended: the turn as stored (no ID when it could not be stored), the result
// and the run's or the store's error.
type answerOutcome struct {
	turn   graphrag.Turn
	result agent.Result
	err    error
}

// eventSink is what a stream does with an answer's events. event is called for each event, in order; flush,
// when set, every flushEvery, for what event holds back (the page renders the growing answer at a pace
// people read). An error from either means the client is gone.
type eventSink struct {
	event      func(agent.Event) error
	flush      func() error
	flushEvery time.Duration
}

// pumpAnswer answers question in the conversation conversationID (Start returned it) in its own goroutine
// and hands the run's events to sink on this goroutine, pinging the stream every keepAlive, until the run
// ends; the events still queued then are handed on too (their write errors ignored: the caller sends the
// end next) and the outcome returned. When a write fails, the client is gone: pumpAnswer cancels the run
// and waits for it, so nothing outlives the request, and returns gone. Cancelling ctx stops the run, which
// then ends as cancelled. The streams of the JSON API and the OpenAI-compatible API go through here; the
// page's answers run apart from their streams (chat_runs.go).
func (s *server) pumpAnswer(ctx context.Context, sse *sseStream, conversationID, question string, sink eventSink) (o answerOutcome, gone bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan agent.Event, 64)
	out := make(chan answerOutcome, 1)
	go func() {
		turn, res, err := s.Chat.Ask(ctx, conversationID, question, func(ev agent.Event) {
			select {
			case events <- ev:
			case <-ctx.Done():
			}
		})
		out <- answerOutcome{turn, res, err}
	}()
	var flush <-chan time.Time
	if sink.flush != nil {
		tick := time.NewTicker(sink.flushEvery)
		defer tick.Stop()
		flush = tick.C
	}
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		var err error
		select {
		case ev := <-events:
			err = sink.event(ev)
		case <-flush:
			err = sink.flush()
		case <-ping.C:
			err = sse.ping()
		case o := <-out:
			// The run sent its last event before its outcome: whatever is queued is all there is.
			for len(events) > 0 {
				_ = sink.event(<-events)
			}
			return o, false
		}
		if err != nil {
			cancel()
			o := <-out
			if o.err != nil && !errors.Is(o.err, context.Canceled) {
				s.Logger.Warn("chat: run ended after its client left", "conversation", conversationID, "err", o.err)
			}
			return o, true
		}
	}
}
