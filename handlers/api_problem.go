package handlers

import (
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/graphrag"
)

// inputProblem is what apiv1 said about bad input, as a sentence.
func inputProblem(err error) string {
	msg := err.Error()
	if _, rest, ok := strings.Cut(msg, apiv1.ErrBadInput.Error()+": "); ok {
		msg = rest
	}
	return strings.ToUpper(msg[:1]) + msg[1:] + "."
}

// ambiguousProblem says which documents a name matches, so the caller can choose one by ID.
func ambiguousProblem(e *graphrag.AmbiguousError) string {
	ids := make([]string, len(e.Matches))
	for i, d := range e.Matches {
		ids[i] = d.ID
	}
	return fmt.Sprintf("%d documents are named “%s”: give one of their IDs (%s).", len(e.Matches), e.Name, strings.Join(ids, ", "))
}
