package handlers

import (
	"context"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Asker starts conversations and answers questions within them, emitting the run's events as they happen,
// and stores the turns (agent.Chat). Start opens the conversation a question continues (graphrag.ErrNotFound
// for an unknown ID or one outside scope) or creates one, owned by scope's account, when the ID is empty;
// Ask answers in it. A cancelled ctx stops the run;
// the turn is stored as cancelled.
type Asker interface {
	Start(ctx context.Context, scope graphrag.ConversationScope, conversationID, question string) (graphrag.Conversation, error)
	Ask(ctx context.Context, conversationID, question string, emit func(agent.Event)) (graphrag.Turn, agent.Result, error)
}
