package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// NewTurnID returns the ID of a new turn.
func NewTurnID() string { return newID("t") }

// TurnAsked is the status of a turn stored and waiting for the stream that starts its answer: the page
// asks in one request and streams the answer in another, which may reach another process sharing the
// store. Claim starts it.
const TurnAsked = "asked"

// Begin stores the turn id asking question in the conversation conversationID (which Start returned) as
// asked, after the turns the conversation has, and returns it; Claim and Answer answer it, in this process
// or in another sharing the store. An unknown conversation is graphrag.ErrNotFound.
func (c *Chat) Begin(ctx context.Context, id, conversationID, question string) (graphrag.Turn, error) {
	turn, _, err := c.begin(ctx, id, conversationID, question, TurnAsked)
	return turn, err
}

// begin stores a new turn with status: asked, or running with its lease taken first.
func (c *Chat) begin(ctx context.Context, id, conversationID, question, status string) (graphrag.Turn, []graphrag.Turn, error) {
	_, turns, err := c.store.Conversation(ctx, graphrag.AllConversations, conversationID)
	if err != nil {
		return graphrag.Turn{}, nil, fmt.Errorf("agent: open conversation %s: %w", conversationID, err)
	}
	turn := graphrag.Turn{ID: id, ConversationID: conversationID, Ordinal: len(turns) + 1, Question: question,
		Status: status, CreatedAt: c.now()}
	if status == TurnRunning {
		if err := c.runs.take(ctx, id); err != nil {
			return turn, nil, err
		}
	}
	if err := c.store.PutTurn(ctx, turn); err != nil {
		if status == TurnRunning {
			c.runs.release(ctx, id)
		}
		return turn, nil, fmt.Errorf("agent: store turn: %w", err)
	}
	return turn, turns, nil
}

// Claim takes an asked turn for this process to answer: it holds the turn's lease and stores it as
// running, and reports true; Answer must follow. A turn another process (or another stream of this one)
// claimed first, or that is no longer asked, is returned as it is now with false.
func (c *Chat) Claim(ctx context.Context, t graphrag.Turn) (graphrag.Turn, bool, error) {
	if t.Status != TurnAsked {
		return t, false, nil
	}
	if c.runs != nil {
		ok, err := c.runs.takeOver(ctx, t.ID)
		if err != nil {
			return t, false, fmt.Errorf("agent: claim turn %s: %w", t.ID, err)
		}
		if !ok { // another process holds it: it is answering it
			cur, err := c.turn(ctx, t.ConversationID, t.ID)
			if err != nil {
				return t, false, fmt.Errorf("agent: claim turn %s: %w", t.ID, err)
			}
			return cur, false, nil
		}
	}
	// Read it again under the lease: another process may have claimed and answered it meanwhile.
	cur, err := c.turn(ctx, t.ConversationID, t.ID)
	if err == nil && cur.Status != TurnAsked {
		c.runs.release(ctx, t.ID)
		return cur, false, nil
	}
	if err == nil {
		cur.Status = TurnRunning
		err = c.store.PutTurn(ctx, cur)
	}
	if err != nil {
		c.runs.release(ctx, t.ID)
		return t, false, fmt.Errorf("agent: claim turn %s: %w", t.ID, err)
	}
	return cur, true, nil
}

// turn reads one turn of a conversation.
func (c *Chat) turn(ctx context.Context, conversationID, id string) (graphrag.Turn, error) {
	_, turns, err := c.store.Conversation(ctx, graphrag.AllConversations, conversationID)
	if err != nil {
		return graphrag.Turn{}, err
	}
	for _, t := range turns {
		if t.ID == id {
			return t, nil
		}
	}
	return graphrag.Turn{}, fmt.Errorf("turn %s: %w", id, graphrag.ErrNotFound)
}

// Answer answers a turn Claim returned, with the finished turns before it as the history a follow-up is
// condensed with, and stores it with its outcome: done, cancelled (ctx ended, or Stop), interrupted (this
// process lost its hold on the turn) or failed. The returned error is the run's or the store's.
func (c *Chat) Answer(ctx context.Context, turn graphrag.Turn, emit func(Event)) (graphrag.Turn, Result, error) {
	_, turns, err := c.store.Conversation(ctx, graphrag.AllConversations, turn.ConversationID)
	if err != nil {
		return turn, Result{}, fmt.Errorf("agent: open conversation %s: %w", turn.ConversationID, err)
	}
	var before []graphrag.Turn
	for _, t := range turns {
		if t.Ordinal < turn.Ordinal && t.ID != turn.ID {
			before = append(before, t)
		}
	}
	return c.answer(ctx, turn, before, emit)
}

// answer runs the turn's question with the turns before it and stores the outcome, holding the turn's
// lease meanwhile (Begin took it).
func (c *Chat) answer(ctx context.Context, turn graphrag.Turn, before []graphrag.Turn, emit func(Event)) (graphrag.Turn, Result, error) {
	defer c.runs.release(ctx, turn.ID)
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopKeeping := c.runs.keep(runCtx, turn.ID, cancel)
	res, runErr := c.agent.Run(runCtx, Input{Question: turn.Question, History: history(before)}, emit)
	stopKeeping()
	turn.Answer = res.Answer
	turn.Status = TurnDone
	switch {
	case runErr != nil && (errors.Is(context.Cause(runCtx), errLeaseLost) || errors.Is(context.Cause(runCtx), ErrInterrupted)):
		turn.Status = TurnInterrupted
	case runErr != nil && runCtx.Err() != nil:
		turn.Status = TurnCancelled
	case runErr != nil:
		turn.Status = TurnFailed
	}
	if err := c.persist(ctx, &turn, res); err != nil {
		return turn, res, errors.Join(runErr, err)
	}
	return turn, res, runErr
}
