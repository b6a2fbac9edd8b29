package llm

import (
	"strings"
	"testing"
)

// verdictLast is the shape of a structured answer whose reasoning must come before its verdict.
type verdictLast struct {
	Facts     []string    `json:"facts"`
	Reasoning string      `json:"reasoning"`
	Steps     []orderStep `json:"steps"`
	Note      string      `json:"note,omitempty"`
	Useful    bool        `json:"useful"`
	Answer    string      `json:"answer"`
}

type orderStep struct {
	Why  string `json:"why"`
	What string `json:"what"`
}

// inOrder fails unless each name's quoted key appears in raw after the previous one.
func inOrder(t *testing.T, what, raw string, names ...string) {
	t.Helper()
	at := -1
	for _, n := range names {
		i := strings.Index(raw[at+1:], `"`+n+`":`)
		if i < 0 {
			t.Fatalf("%s: %q missing or out of order (want %v) in %s", what, n, names, raw)
		}
		at += 1 + i
	}
}

// The schemas a grammar follows list a struct's fields in their declared order, not alphabetically: the
// model writes its facts and reasoning before the verdict and the answer.
func TestSchemaKeepsFieldOrder(t *testing.T) {
	s := schemaFor[verdictLast]()
	if s.err != nil {
		t.Fatal(s.err)
	}
	for name, raw := range map[string]string{"schema": string(s.raw), "bounded": string(s.bounded), "compact": string(s.grammar(4))} {
		props := raw[strings.Index(raw, `"properties":`):]
		if name == "compact" {
			inOrder(t, name, props, "facts", "reasoning", "steps", "useful", "answer")
			if strings.Contains(props, `"note":`) {
				t.Errorf("compact: the optional text is still there: %s", raw)
			}
		} else {
			inOrder(t, name, props, "facts", "reasoning", "steps", "note", "useful", "answer")
		}
		// The nested struct's fields keep their order too ("why" before "what", against the alphabet).
		inOrder(t, name, raw, "why", "what")
	}
}
