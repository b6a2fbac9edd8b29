package apiv1

import (
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Conversation is a chat thread; Turns is filled when one conversation is read.
type Conversation struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	TurnCount int       `json:"turn_count"`
	Turns     []Turn    `json:"turns,omitempty"`
}

// Turn is one question of a conversation and its answer, as stored.
type Turn struct {
	ID        string           `json:"id"`
	Ordinal   int              `json:"ordinal"`
	Question  string           `json:"question"`
	Answer    string           `json:"answer"`
	Status    string           `json:"status" jsonschema:"running, done, cancelled or failed"`
	Citations []agent.Citation `json:"citations"`
	CreatedAt time.Time        `json:"created_at"`
}

// ConversationPage is one page of the conversations, most recently updated first.
type ConversationPage struct {
	Conversations []Conversation `json:"conversations"`
	Total         int            `json:"total"`
	Offset        int            `json:"offset"`
	NextOffset    *int           `json:"next_offset,omitempty" jsonschema:"where the next page starts; absent on the last page"`
}

// NewConversation is the program's view of a conversation and its turns (none when listing).
func NewConversation(c graphrag.Conversation, turns []graphrag.Turn) Conversation {
	out := Conversation{ID: c.ID, Title: c.Title, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, TurnCount: c.Turns}
	for _, t := range turns {
		cs, err := agent.DecodeCitations(t.Citations)
		if err != nil || cs == nil {
			cs = []agent.Citation{}
		}
		out.Turns = append(out.Turns, Turn{ID: t.ID, Ordinal: t.Ordinal, Question: t.Question, Answer: t.Answer,
			Status: t.Status, Citations: cs, CreatedAt: t.CreatedAt})
	}
	if turns != nil {
		out.TurnCount = len(turns)
	}
	return out
}

// Page cuts items to the page from offset with at most limit items (DefaultPageSize when not positive,
// MaxPageSize at most) and says where the next page starts (nil on the last).
func Page[T any](items []T, offset, limit int) ([]T, *int, error) {
	if offset < 0 {
		return nil, nil, badInput("offset cannot be negative")
	}
	if limit <= 0 {
		limit = DefaultPageSize
	}
	limit = min(limit, MaxPageSize)
	page := items[min(offset, len(items)):min(offset+limit, len(items))]
	if next := offset + limit; next < len(items) {
		return page, &next, nil
	}
	return page, nil, nil
}
