package graphragtest

import (
	"encoding/json"
	"strings"

	"github.com/hopwise/hopwise/llm/llmtest"
)

// SecondMarker starts every description the second model writes.
const SecondMarker = "v2: "

// SecondExtraction answers extraction calls as a second chat model would: the graph Extraction finds,
// each entity's and relation's description starting with SecondMarker, so a re-extracted graph can be
// told from the first. Use it with llmtest.Server.Handle.
func SecondExtraction(req llmtest.Request) (llmtest.Reply, bool) {
	reply, ok := Extraction(req)
	if !ok || reply.Status != 0 {
		return reply, ok
	}
	var g Graph
	if err := json.Unmarshal([]byte(reply.Content), &g); err != nil {
		return llmtest.Reply{Status: 500, ErrorMessage: err.Error()}, true
	}
	for i := range g.Entities {
		g.Entities[i].Description = second(g.Entities[i].Description)
	}
	for i := range g.Relations {
		g.Relations[i].Description = second(g.Relations[i].Description)
	}
	b, err := json.Marshal(g)
	if err != nil {
		return llmtest.Reply{Status: 500, ErrorMessage: err.Error()}, true
	}
	return llmtest.Reply{Content: string(b)}, true
}

// second is a description as the second model writes it, within the prompt's 80 characters.
func second(desc string) string {
	s := SecondMarker + strings.TrimPrefix(desc, SecondMarker)
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80])
	}
	return s
}

// IsSecond reports whether a description was written by the second model.
func IsSecond(desc string) bool { return strings.HasPrefix(desc, SecondMarker) }
