package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

type subQuestions struct {
	Queries []string `json:"queries" description:"up to 3 new search questions, each for one missing fact; empty if nothing more can be searched" maxItems:"3" maxLength:"120"`
}

const (
	maxSubQueries = 3
	// foundShown bounds the kept sources shown to transform_query, newest first.
	foundShown = 10
)

// transform writes new sub-questions from what was found, the hypothesis and the critique. The question
// itself is never rewritten. It returns only queries not searched before; none means nothing more to try.
func (r *run) transform(ctx context.Context) ([]string, error) {
	r.started(NodeTransform, "Working out what is still missing")
	r.round()
	sq, err := llm.Structured[subQuestions](ctx, r.a.llm, request("transform", promptTransform, r.transformPrompt()))
	return r.newSearches(sq.Queries, err)
}

// newSearches ends a planning step: the queries of its answer not searched before, none when the answer
// was unreadable.
func (r *run) newSearches(queries []string, err error) ([]string, error) {
	if errors.Is(err, llm.ErrInvalidOutput) {
		r.rec.send(Event{Type: EventError, Node: NodeTransform, Error: "the plan for new searches was unreadable"})
		r.finished(NodeTransform, "No new searches")
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("agent: plan new searches: %w", err)
	}
	return r.acceptSearches(queries), nil
}

// acceptSearches keeps the queries of a plan that no pass searched yet, at most maxSubQueries, and says so.
func (r *run) acceptSearches(queries []string) []string {
	qs := nonEmpty(queries)
	fresh := r.st.addQueries(qs[:min(len(qs), maxSubQueries)])
	if len(fresh) == 0 {
		r.finished(NodeTransform, "Nothing new to search for")
		return nil
	}
	r.rec.send(Event{Type: EventQueries, Node: NodeTransform, Summary: "Next, looking for: " + clip(strings.Join(fresh, "; "), 200), Queries: fresh})
	r.finished(NodeTransform, fmt.Sprintf("%d new searches", len(fresh)))
	return fresh
}

func (r *run) transformPrompt() string {
	var b strings.Builder
	b.WriteString("Question: " + r.st.question + "\n")
	writeList(&b, "Queries already asked", r.st.queries)
	var notes strings.Builder
	writeNote(&notes, "Hypothesis", r.st.hypothesis)
	writeNote(&notes, "Missing", r.st.missing)
	writeNote(&notes, "Critique of the last answer", r.st.critique)
	writeList(&notes, "Unsupported claims in the last answer", r.st.unsupported)
	writeNotes(&b, notes.String())
	kept := r.st.kept[max(0, len(r.st.kept)-foundShown):]
	if len(kept) == 0 {
		b.WriteString("\nFound so far: nothing useful.\n")
		return b.String()
	}
	b.WriteString("\nFound so far:\n")
	for i, s := range kept {
		writeData(&b, i+1, s.origin(), clip(s.text(), 400))
	}
	return b.String()
}
