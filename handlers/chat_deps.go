package handlers

import (
	"context"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Asker starts conversations and answers questions within them, emitting the run's events as they happen,
// and stores the turns (agent.Chat). Start opens the conversation a question continues (graphrag.ErrNotFound
// for an unknown ID or one outside scope) or creates one, owned by scope's account, when the ID is empty;
// Ask answers in it within the call. The page asks in one request and streams in another, possibly through
// another process: Begin stores the turn as asked, Claim takes it for this process and Answer answers it.
// A cancelled ctx, or Stop from any process, stops the run; the turn is stored as cancelled. Live reports
// whether a process holds the turn's lease, and Settle stores a running turn whose process is gone as
// interrupted.
type Asker interface {
	Start(ctx context.Context, scope graphrag.ConversationScope, conversationID, question string) (graphrag.Conversation, error)
	Ask(ctx context.Context, conversationID, question string, emit func(agent.Event)) (graphrag.Turn, agent.Result, error)
	Begin(ctx context.Context, id, conversationID, question string) (graphrag.Turn, error)
	Claim(ctx context.Context, t graphrag.Turn) (graphrag.Turn, bool, error)
	Answer(ctx context.Context, t graphrag.Turn, emit func(agent.Event)) (graphrag.Turn, agent.Result, error)
	Stop(ctx context.Context, id string) (bool, error)
	Live(ctx context.Context, id string) (bool, error)
	Settle(ctx context.Context, t graphrag.Turn) (graphrag.Turn, error)
}
