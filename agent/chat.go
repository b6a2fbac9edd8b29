package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Turn statuses.
const (
	TurnRunning   = "running"
	TurnDone      = "done"
	TurnCancelled = "cancelled"
	TurnFailed    = "failed"
)

// Chat ties runs to stored conversations: a follow-up is condensed with the earlier turns into a
// standalone question, and every turn is stored with its answer, trace and citations.
type Chat struct {
	agent *Agent
	store graphrag.ConversationStore
	now   func() time.Time
}

// NewChat returns a Chat that keeps conversations in store.
func NewChat(a *Agent, store graphrag.ConversationStore) *Chat {
	return &Chat{agent: a, store: store, now: func() time.Time { return time.Now().UTC() }}
}

// historyTurns bounds the earlier turns given to a follow-up.
const historyTurns = 6

// persistTimeout bounds the final write of a turn, which happens even when ctx was cancelled.
const persistTimeout = 10 * time.Second

// Ask answers question in the conversation conversationID, creating the conversation when the ID is empty
// (a new ID) or unknown. The turn is stored as running before the run and with its outcome after it:
// done, cancelled (ctx ended) or failed. The returned error is the run's or the store's.
func (c *Chat) Ask(ctx context.Context, conversationID, question string, emit func(Event)) (graphrag.Turn, Result, error) {
	conv, turns, err := c.open(ctx, conversationID, question)
	if err != nil {
		return graphrag.Turn{}, Result{}, err
	}
	turn := graphrag.Turn{ID: newID("t"), ConversationID: conv.ID, Ordinal: len(turns) + 1, Question: question,
		Status: TurnRunning, CreatedAt: c.now()}
	if err := c.store.PutTurn(ctx, turn); err != nil {
		return turn, Result{}, fmt.Errorf("agent: store turn: %w", err)
	}
	res, runErr := c.agent.Run(ctx, Input{Question: question, History: history(turns)}, emit)
	turn.Answer = res.Answer
	turn.Status = TurnDone
	switch {
	case runErr != nil && ctx.Err() != nil:
		turn.Status = TurnCancelled
	case runErr != nil:
		turn.Status = TurnFailed
	}
	if err := c.persist(ctx, &turn, res); err != nil {
		return turn, res, errors.Join(runErr, err)
	}
	return turn, res, runErr
}

// open returns the conversation and its turns, creating it when needed.
func (c *Chat) open(ctx context.Context, id, question string) (graphrag.Conversation, []graphrag.Turn, error) {
	if id != "" {
		conv, turns, err := c.store.Conversation(ctx, id)
		if err == nil {
			return conv, turns, nil
		}
		if !errors.Is(err, graphrag.ErrNotFound) {
			return graphrag.Conversation{}, nil, fmt.Errorf("agent: open conversation %s: %w", id, err)
		}
	} else {
		id = newID("c")
	}
	now := c.now()
	conv := graphrag.Conversation{ID: id, Title: clip(question, 80), CreatedAt: now, UpdatedAt: now}
	if err := c.store.PutConversation(ctx, conv); err != nil {
		return graphrag.Conversation{}, nil, fmt.Errorf("agent: create conversation: %w", err)
	}
	return conv, nil, nil
}

// persist stores the finished turn, even when ctx was cancelled.
func (c *Chat) persist(ctx context.Context, turn *graphrag.Turn, res Result) error {
	var err error
	if turn.Trace, err = EncodeTrace(res.Trace); err != nil {
		return err
	}
	if turn.Citations, err = EncodeCitations(res.Citations); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), persistTimeout)
	defer cancel()
	if err := c.store.PutTurn(wctx, *turn); err != nil {
		return fmt.Errorf("agent: store turn: %w", err)
	}
	return nil
}

// history is the finished exchanges of the latest turns, oldest first.
func history(turns []graphrag.Turn) []Exchange {
	var out []Exchange
	for _, t := range turns {
		if t.Status == TurnDone && strings.TrimSpace(t.Answer) != "" {
			out = append(out, Exchange{Question: t.Question, Answer: t.Answer})
		}
	}
	return out[max(0, len(out)-historyTurns):]
}

func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
