package handlers

import (
	"encoding/json"
	"strings"

	"github.com/hopwise/hopwise/agent"
)

// modelID is the one model Hopwise offers until workspaces exist (one model per workspace then).
const modelID = "hopwise"

type modelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object" jsonschema:"model"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

type modelListJSON struct {
	Object string      `json:"object" jsonschema:"list"`
	Data   []modelJSON `json:"data"`
}

// chatRequest is what Hopwise reads of an OpenAI chat completions request; the sampling settings are the
// agent's own and are ignored.
type chatRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream,omitempty"`
	// ConversationID continues a conversation stored by Hopwise instead of the one the messages make.
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"Hopwise: continue this stored conversation (the messages before the last are then not read)"`
	// Steps asks for the agent's steps as extra chunks (choices empty, hopwise_event set) while streaming.
	Steps bool `json:"hopwise_steps,omitempty" jsonschema:"Hopwise: stream the agent's steps as extra chunks with no choices"`
	// Reasoning (true unless said false) streams the steps' summaries as reasoning_content, which chat front
	// ends show as a reasoning model's thinking and other clients ignore.
	Reasoning *bool `json:"hopwise_reasoning,omitempty" jsonschema:"Hopwise: stream the agent's steps as reasoning_content (default true)"`
}

type chatMessage struct {
	Role string `json:"role" jsonschema:"system, user or assistant; system messages are not read"`
	// Content is a string, or a list of parts of which the text parts are read.
	Content json.RawMessage `json:"content"`
}

// text is a message's text: its string, or its text parts joined.
func (m chatMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	if json.Unmarshal(m.Content, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

type completionMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Citations []agent.Citation `json:"citations" jsonschema:"the sources the [n] markers of the content cite"`
}

type completionChoice struct {
	Index        int               `json:"index"`
	Message      completionMessage `json:"message"`
	FinishReason string            `json:"finish_reason"`
}

type usageJSON struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func newUsage(u agent.Usage) *usageJSON {
	return &usageJSON{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
}

// hopwiseJSON is what Hopwise adds to a completion; clients that do not know it ignore it.
type hopwiseJSON struct {
	ConversationID string `json:"conversation_id"`
	TurnID         string `json:"turn_id"`
	NotFound       bool   `json:"not_found" jsonschema:"true when the documents do not answer the question"`
}

type completionJSON struct {
	ID        string             `json:"id"`
	Object    string             `json:"object" jsonschema:"chat.completion"`
	Created   int64              `json:"created"`
	Model     string             `json:"model"`
	Choices   []completionChoice `json:"choices"`
	Usage     *usageJSON         `json:"usage"`
	Citations []agent.Citation   `json:"citations"`
	Hopwise   hopwiseJSON        `json:"hopwise"`
}

type chunkDelta struct {
	Role             string `json:"role,omitempty"`
	Content          string `json:"content,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

type chunkChoice struct {
	Index        int        `json:"index"`
	Delta        chunkDelta `json:"delta"`
	FinishReason *string    `json:"finish_reason"`
}

// stepJSON is a step of the agent's run in an extra chunk.
type stepJSON struct {
	Type    string `json:"type"`
	Node    string `json:"node,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// chunkJSON is one chat.completion.chunk. The last one (finish_reason set) carries the citations, the
// usage and Hopwise's additions; step chunks have no choices and a hopwise_event.
type chunkJSON struct {
	ID        string           `json:"id"`
	Object    string           `json:"object" jsonschema:"chat.completion.chunk"`
	Created   int64            `json:"created"`
	Model     string           `json:"model"`
	Choices   []chunkChoice    `json:"choices"`
	Usage     *usageJSON       `json:"usage,omitempty"`
	Citations []agent.Citation `json:"citations,omitempty"`
	Hopwise   *hopwiseJSON     `json:"hopwise,omitempty"`
	Event     *stepJSON        `json:"hopwise_event,omitempty"`
}
