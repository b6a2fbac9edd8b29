package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Two Chats on one store stand for two processes sharing it: each holds its own leases.
func twoProcesses(t *testing.T, gradeDelay time.Duration, lease time.Duration) (a, b *agent.Chat, m *model) {
	m = newModel(t)
	scriptNexa(m, gradeDelay)
	store := demoStore(t)
	ag := m.agent(agent.Config{}, nil, nil)
	return agent.NewChat(ag, store).WithLease(lease), agent.NewChat(ag, store).WithLease(lease), m
}

func askedTurn(t *testing.T, c *agent.Chat, question string) graphrag.Turn {
	t.Helper()
	ctx := context.Background()
	conv, err := c.Start(ctx, graphrag.AllConversations, "", question)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := c.Begin(ctx, agent.NewTurnID(), conv.ID, question)
	if err != nil || turn.Status != agent.TurnAsked {
		t.Fatalf("Begin = %+v, %v", turn, err)
	}
	return turn
}

// A stop asked through another process reaches the run within a third of the lease; the turn is stored as
// cancelled, and only one process can claim an asked turn.
func TestStopReachesARunOfAnotherProcess(t *testing.T) {
	a, b, _ := twoProcesses(t, 3*time.Second, 600*time.Millisecond)
	ctx := context.Background()
	turn := askedTurn(t, a, "Who founded Nexa AI?")
	claimed, ok, err := a.Claim(ctx, turn)
	if err != nil || !ok || claimed.Status != agent.TurnRunning {
		t.Fatalf("a's Claim = %+v %v %v", claimed, ok, err)
	}
	if again, ok, err := b.Claim(ctx, turn); err != nil || ok || again.Status != agent.TurnRunning {
		t.Fatalf("b's Claim of a's turn = %+v %v %v, want it left to a", again, ok, err)
	}
	type outcome struct {
		turn graphrag.Turn
		err  error
	}
	out := make(chan outcome, 1)
	go func() {
		tr, _, err := a.Answer(ctx, claimed, nil)
		out <- outcome{tr, err}
	}()
	time.Sleep(200 * time.Millisecond) // the run is grading
	if live, err := b.Live(ctx, turn.ID); err != nil || !live {
		t.Fatalf("b sees the run live = %v, %v", live, err)
	}
	began := time.Now()
	if stopped, err := b.Stop(ctx, turn.ID); err != nil || !stopped {
		t.Fatalf("b's Stop = %v, %v", stopped, err)
	}
	select {
	case o := <-out:
		if o.turn.Status != agent.TurnCancelled || o.err == nil {
			t.Errorf("after the stop: %+v %v, want cancelled", o.turn, o.err)
		}
		if took := time.Since(began); took > 600*time.Millisecond {
			t.Errorf("the stop took %s, more than the lease", took)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not stop")
	}
	if live, _ := b.Live(ctx, turn.ID); live {
		t.Error("the turn's lease is still held after its run ended")
	}
	if stopped, _ := b.Stop(ctx, turn.ID); stopped {
		t.Error("Stop of a finished turn reports a run")
	}
}

// A turn whose process died (claimed, its lease never renewed) stays running while the lease lasts and is
// stored as interrupted by the next process that settles it after, with what its stored events said.
func TestSettleInterruptsATurnWhoseProcessDied(t *testing.T) {
	a, b, _ := twoProcesses(t, 0, 500*time.Millisecond)
	ctx := context.Background()
	store := demoStore(t)
	turn := askedTurn(t, a, "Who founded Nexa AI?")
	claimed, ok, err := a.Claim(ctx, turn) // a then dies: nothing renews its lease
	if err != nil || !ok {
		t.Fatal(err)
	}
	log := agent.NewEventLog(store, turn.ID)
	log.Add(agent.Event{Type: agent.EventNodeFinished, Node: agent.NodeRetrieve, Summary: "Found the company history"})
	log.Add(agent.Event{Type: agent.EventToken, Delta: "Nexa AI was founded "})
	log.Add(agent.Event{Type: agent.EventToken, Delta: "by Lena Vogt"})
	if _, err := log.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s, err := b.Settle(ctx, claimed); err != nil || s.Status != agent.TurnRunning {
		t.Fatalf("Settle while the lease lasts = %+v, %v; want it running", s, err)
	}
	time.Sleep(600 * time.Millisecond)
	s, err := b.Settle(ctx, claimed)
	if err != nil || s.Status != agent.TurnInterrupted || s.Answer != "Nexa AI was founded by Lena Vogt" {
		t.Fatalf("Settle after the lease = %+v, %v", s, err)
	}
	trace, err := agent.DecodeTrace(s.Trace)
	if err != nil || len(trace) != 1 || trace[0].Summary != "Found the company history" {
		t.Errorf("trace of the interrupted turn: %+v %v", trace, err)
	}
	_, turns, _ := store.Conversation(ctx, graphrag.AllConversations, turn.ConversationID)
	if len(turns) != 1 || turns[0].Status != agent.TurnInterrupted {
		t.Errorf("stored: %+v", turns)
	}
	if evs, _ := store.RunEvents(ctx, turn.ID, 0, 0); len(evs) != 0 {
		t.Errorf("%d events left after settling", len(evs))
	}
	if s2, err := a.Settle(ctx, s); err != nil || s2.Status != agent.TurnInterrupted {
		t.Errorf("Settle again = %+v, %v", s2, err)
	}
}

// The log numbers events from 1 across writes, joins consecutive tokens and keeps the last of consecutive
// places in line; Replay gives the answer since the last restart and the trace without tokens.
func TestEventLogJoinsTokensAndNumbersEvents(t *testing.T) {
	store := demoStore(t)
	ctx := context.Background()
	id := agent.NewTurnID()
	log := agent.NewEventLog(store, id)
	log.Add(agent.Event{Type: agent.EventNodeStarted, Node: agent.NodeRetrieve, Summary: "Searching"})
	log.Add(agent.Event{Type: agent.EventQueued, Queue: &agent.Queue{Waiting: true, Ahead: 2}})
	log.Add(agent.Event{Type: agent.EventQueued, Queue: &agent.Queue{Waiting: true, Ahead: 1}})
	log.Add(agent.Event{Type: agent.EventToken, Delta: "A draft"})
	log.Add(agent.Event{Type: agent.EventToken, Delta: " answer"})
	if last, err := log.Flush(ctx); err != nil || last != 3 {
		t.Fatalf("first Flush = %d, %v; want 3 events", last, err)
	}
	if log.Pending() {
		t.Error("events pending after a Flush")
	}
	log.Add(agent.Event{Type: agent.EventAnswerReset})
	log.Add(agent.Event{Type: agent.EventToken, Delta: "The final"})
	log.Add(agent.Event{Type: agent.EventToken, Delta: " answer"})
	log.Add(agent.Event{Type: agent.EventAnswer, Result: &agent.Result{Answer: "The final answer", Trace: []agent.Event{{Type: agent.EventNodeStarted}}}})
	if last, err := log.Flush(ctx); err != nil || last != 6 {
		t.Fatalf("second Flush = %d, %v; want 6 events", last, err)
	}
	events, err := agent.RunEventsAfter(ctx, store, id, 0)
	if err != nil || len(events) != 6 {
		t.Fatalf("stored %d events, %v", len(events), err)
	}
	var kinds []string
	for i, e := range events {
		if e.Seq != i+1 {
			t.Errorf("event %d numbered %d", i, e.Seq)
		}
		kinds = append(kinds, string(e.Type))
	}
	if got := strings.Join(kinds, " "); got != "node_started queued token answer_reset token answer" {
		t.Errorf("stored %s", got)
	}
	if events[1].Queue.Ahead != 1 || events[2].Delta != "A draft answer" || events[5].Result.Trace != nil {
		t.Errorf("queued %+v, token %q, answer's trace %v", events[1].Queue, events[2].Delta, events[5].Result.Trace)
	}
	evs := make([]agent.Event, len(events))
	for i, e := range events {
		evs[i] = e.Event
	}
	answer, trace := agent.Replay(evs)
	if answer != "The final answer" || len(trace) != 3 {
		t.Errorf("Replay = %q with %d trace events, want the final answer and 3", answer, len(trace))
	}
	if after, _ := agent.RunEventsAfter(ctx, store, id, 4); len(after) != 2 || after[0].Seq != 5 {
		t.Errorf("events after 4: %+v", after)
	}
}
