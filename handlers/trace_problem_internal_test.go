package handlers

import (
	"github.com/hopwise/hopwise/agent"
	"strings"
	"testing"
)

// Issue 21, item 8: the trace showed raw error chains with the model's address.
func TestProblemTextHidesErrorChains(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"connection refused", `agent: generate: llm: stream (answer): Post "http://10.1.2.3:8081/v1/chat/completions": dial tcp 10.1.2.3:8081: connect: connection refused`, "The model could not be reached"},
		{"timeout", `agent: grade: llm: structured (grade): llm: timed out after 2m0s: context deadline exceeded`, "did not answer in time"},
		{"rate limited", `agent: decide retrieval: llm: chat (decide): 429 rate limited: Rate limit reached for gpt-4o-mini in organization org-abc`, "too many at once"},
		{"quota", `agent: generate: llm: stream (answer): 429 insufficient quota: You exceeded your current quota`, "no credit"},
		{"bad key", `agent: decide retrieval: llm: chat (decide): 401 unauthorized: Incorrect API key provided: sk-abc***xyz`, "API key"},
		{"server error", `agent: audit: llm: structured (audit): 502 bad gateway: upstream https://api.example/v1 failed`, "server reported an error"},
		{"stalled", `agent: generate: llm: stream (answer): stream stalled: no data for 30s`, "stopped writing"},
		{"stopped", `agent: run stopped: context canceled`, "was stopped"},
		{"unreadable", `agent: grade: llm: structured (grade): invalid structured output after 2 repairs: want object`, "could not be read"},
		{"web search", `the web search failed: websearch: Get "https://searx.internal:8888/search?q=x": dial tcp: lookup searx.internal: no such host`, "The web search failed: the search service could not be reached"},
		{"unknown chain", `agent: retrieve: sqlite: vector search: something odd`, "the details are in its log"},
		{"the agent's own sentence", "the time allowed for one question ran out; ending with what was found", "the time allowed for one question ran out; ending with what was found"},
	}
	raw := tests[0].in
	if step, _ := stepView(agent.Event{Type: agent.EventError, Error: raw}); strings.Contains(step.Title, "10.1.2.3") || step.Kind != "error" {
		t.Errorf("the trace's step: %+v", step)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemText(tt.in)
			if !strings.Contains(got, tt.want) {
				t.Errorf("problemText = %q, want it to say %q", got, tt.want)
			}
			for _, leak := range []string{"://", "10.1.2.3", "8081", "sk-abc", "llm:", "agent:", "dial tcp", "searx.internal", "org-abc"} {
				if strings.Contains(got, leak) {
					t.Errorf("problemText = %q shows %q", got, leak)
				}
			}
		})
	}
}
