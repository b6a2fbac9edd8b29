package apiv1

import (
	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Answer is a question's answer as programs read it: markdown whose [n] markers are the Citations' N.
type Answer struct {
	ConversationID string           `json:"conversation_id" jsonschema:"continue the conversation by giving it with the next question"`
	TurnID         string           `json:"turn_id"`
	Status         string           `json:"status" jsonschema:"done, cancelled or failed"`
	Answer         string           `json:"answer" jsonschema:"markdown; [n] cites the citation whose n it is"`
	NotFound       bool             `json:"not_found" jsonschema:"true when the documents do not answer the question"`
	Citations      []agent.Citation `json:"citations"`
}

// NewAnswer is the program's view of a turn and the run that made it.
func NewAnswer(turn graphrag.Turn, res agent.Result) Answer {
	cs := res.Citations
	if cs == nil {
		cs = []agent.Citation{}
	}
	return Answer{ConversationID: turn.ConversationID, TurnID: turn.ID, Status: turn.Status, Answer: res.Answer,
		NotFound: res.NotFound, Citations: cs}
}
