package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

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
	// runs holds the lease of every turn being answered (chat_lease.go); nil for a store without leases.
	runs *runLeases
}

// NewChat returns a Chat that keeps conversations in store. When store also keeps leases and run events
// (graphrag.RunStore, as both stores do), each turn being answered holds a lease that says so to every
// process sharing the store (chat_lease.go).
func NewChat(a *Agent, store graphrag.ConversationStore) *Chat {
	return &Chat{agent: a, store: store, now: func() time.Time { return time.Now().UTC() }, runs: newRunLeases(store)}
}

// historyTurns bounds the earlier turns given to a follow-up.
const historyTurns = 6

// persistTimeout bounds the final write of a turn, which happens even when ctx was cancelled.
const persistTimeout = 10 * time.Second

// Start opens the conversation a question continues, or creates one named after the question when
// conversationID is empty, owned by scope's account (none for graphrag.AllConversations: a laptop install
// without accounts). An unknown ID, or one outside scope, is graphrag.ErrNotFound: a question never lands
// in a conversation the caller may not see. Start only records the conversation; Ask answers in it, at once
// or later (the page asks in one request and streams the answer in another).
func (c *Chat) Start(ctx context.Context, scope graphrag.ConversationScope, conversationID, question string) (graphrag.Conversation, error) {
	if conversationID != "" {
		conv, _, err := c.store.Conversation(ctx, scope, conversationID)
		if err != nil {
			return graphrag.Conversation{}, fmt.Errorf("agent: open conversation %s: %w", conversationID, err)
		}
		return conv, nil
	}
	now := c.now()
	conv := graphrag.Conversation{ID: newID("c"), Title: ShortTitle(question, titleRunes), CreatedAt: now, UpdatedAt: now,
		Owner: scope.Owner}
	if err := c.store.PutConversation(ctx, conv); err != nil {
		return graphrag.Conversation{}, fmt.Errorf("agent: create conversation: %w", err)
	}
	return conv, nil
}

// titleRunes bounds the title a conversation takes from its first question.
const titleRunes = 80

// Ask answers question in the conversation conversationID, which Start returned (so the caller's scope
// was checked there), stored as running from the start. The returned error is the run's or the store's; a conversation
// deleted meanwhile is graphrag.ErrNotFound.
func (c *Chat) Ask(ctx context.Context, conversationID, question string, emit func(Event)) (graphrag.Turn, Result, error) {
	turn, turns, err := c.begin(ctx, NewTurnID(), conversationID, question, TurnRunning)
	if err != nil {
		return turn, Result{}, err
	}
	return c.answer(ctx, turn, turns, emit)
}

// ShortTitle is s on one line, cut to at most n runes at a word boundary.
func ShortTitle(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n]
	if i := strings.LastIndex(string(r), " "); i > n/2 {
		return string(r)[:i] + "…"
	}
	return string(r) + "…"
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
