package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// StoreRuns is the Runner of a process that serves no page (`hopwise mcp` over stdio): the question is
// stored as a turn, answered in this process within the call, its events written to the store as they
// happen (agent.EventLog), and the call's progress read back from there. A `hopwise serve` sharing the
// store lists the question at once and streams its answer from the stored events; a run whose process
// dies is shown there as interrupted, with a retry. The call's end (the client cancels) cancels the run.
type StoreRuns struct {
	Chat   *agent.Chat
	Store  graphrag.RunStore
	Logger *slog.Logger
}

// storeRunFlush is how often a run's new events are written, as a web server's runs are.
const storeRunFlush = 100 * time.Millisecond

// Run is Runner's.
func (r StoreRuns) Run(ctx context.Context, scope graphrag.ConversationScope, conversationID, q string, events func(agent.SeqEvent)) (graphrag.Turn, agent.Result, error) {
	logger := cmp.Or(r.Logger, slog.New(slog.DiscardHandler))
	conv, err := r.Chat.Start(ctx, scope, conversationID, q)
	if err != nil {
		return graphrag.Turn{}, agent.Result{}, err
	}
	t, err := r.Chat.Begin(ctx, agent.NewTurnID(), conv.ID, q)
	if err != nil {
		return t, agent.Result{}, err
	}
	t, claimed, err := r.Chat.Claim(ctx, t)
	if err != nil {
		return t, agent.Result{}, err
	}
	if !claimed { // a web server's stream found the new turn first: it answers it
		return t, agent.Result{}, fmt.Errorf("mcpserver: turn %s was claimed by another process", t.ID)
	}
	log := agent.NewEventLog(r.Store, t.ID)
	seq := 0
	flush := func() {
		fctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer stop()
		if _, err := log.Flush(fctx); err != nil {
			logger.Warn("mcp: store the run's events (tried again at the next write)", "turn", t.ID, "err", err)
			return
		}
		stored, err := agent.RunEventsAfter(fctx, r.Store, t.ID, seq)
		if err != nil {
			logger.Warn("mcp: read the run's events", "turn", t.ID, "err", err)
		}
		for _, e := range stored {
			seq = e.Seq
			events(e)
		}
	}
	type outcome struct {
		turn graphrag.Turn
		res  agent.Result
		err  error
	}
	out := make(chan outcome, 1)
	go func() {
		turn, res, err := r.Chat.Answer(ctx, t, func(ev agent.Event) {
			log.Add(ev)
			if ev.Type == agent.EventAnswer || ev.Type == agent.EventError {
				flush() // stored before the turn is, as a web server's runs store them
			}
		})
		out <- outcome{turn, res, err}
	}()
	tick := time.NewTicker(storeRunFlush)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if log.Pending() {
				flush()
			}
		case o := <-out:
			if log.Pending() {
				flush()
			}
			// The turn holds what the events said: they stay a moment for the streams still reading them;
			// what a process that stops first leaves is pruned by the web server (PruneRuns).
			time.AfterFunc(5*time.Second, func() {
				dctx, stop := context.WithTimeout(context.Background(), 10*time.Second)
				defer stop()
				_ = r.Store.DeleteRunEvents(dctx, t.ID)
			})
			if o.err != nil && (o.turn.Status == agent.TurnRunning || o.turn.Status == agent.TurnDone) {
				return o.turn, o.res, o.err // not run or not stored: the store failed, or the conversation was deleted
			}
			if o.err != nil {
				logger.Warn("mcp: run ended", "turn", t.ID, "status", o.turn.Status, "err", o.err)
			}
			return o.turn, o.res, nil
		}
	}
}
