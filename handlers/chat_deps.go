package handlers

import (
	"context"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Asker answers a question within a conversation, emitting the run's events as they happen, and stores the
// turn (agent.Chat). A cancelled ctx stops the run; the turn is stored as cancelled.
type Asker interface {
	Ask(ctx context.Context, conversationID, question string, emit func(agent.Event)) (graphrag.Turn, agent.Result, error)
}
