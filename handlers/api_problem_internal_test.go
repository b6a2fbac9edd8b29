package handlers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
)

// The JSON API states problems as the page does: an event's error and the result's trace carry no error
// chain with the model's address, while the agent's own sentences pass unchanged.
func TestJSONAPIHidesErrorChains(t *testing.T) {
	raw := `agent: generate: llm: stream (answer): Post "http://10.1.2.3:8081/v1/chat/completions": dial tcp 10.1.2.3:8081: connect: connection refused`
	own := "the time allowed for one question ran out; ending with what was found"
	res := publicResult(agent.Result{Answer: "x", Trace: []agent.Event{{Type: agent.EventError, Error: raw}, {Type: agent.EventError, Error: own}}})
	b, _ := json.Marshal(struct {
		Event  agent.Event
		Result agent.Result
	}{publicEvent(agent.Event{Type: agent.EventError, Error: raw}), res})
	for _, leak := range []string{"10.1.2.3", "://", "dial tcp", "llm:"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("the JSON shows %q: %s", leak, b)
		}
	}
	if !strings.Contains(string(b), "could not be reached") || res.Trace[1].Error != own {
		t.Errorf("the JSON does not state the problem plainly: %s", b)
	}
}
