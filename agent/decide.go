package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

// decision is the decide call's answer: whether to search, and the expansion queries (multi-query) folded
// into the same call so that expansion costs no round of its own.
type decision struct {
	Retrieve bool     `json:"retrieve" description:"true when the answer needs a search in the user's documents"`
	Queries  []string `json:"queries" description:"up to 3 short search queries when retrieve is true, else an empty list" maxItems:"3" maxLength:"120"`
	// Collection asks for the whole-collection route (collection.go).
	Collection bool `json:"whole_collection,omitempty" description:"true when the question asks about the documents as a whole (main themes, risks or findings across all of them) rather than about particular facts"`
}

// Validate refuses queries too long to be queries (a model answering instead of searching); too many
// queries are cut to maxExpansions later, not refused.
func (d decision) Validate() error {
	for i, q := range d.Queries {
		if len(q) > 500 {
			return fmt.Errorf("queries[%d] is %d characters long; keep each query short", i, len(q))
		}
	}
	return nil
}

const maxExpansions = 3

// decide asks whether the question needs the documents (always, with the decide technique off: no call,
// and no expansion queries, which the decision writes). An unreadable answer means "search": a search
// that turns out unnecessary costs less than a confident answer without sources.
func (r *run) decide(ctx context.Context) (decision, error) {
	if !r.cfg.Techniques.Decide {
		r.rec.send(Event{Type: EventNodeFinished, Node: NodeDecide, Summary: "Searching your documents (every question is searched: the decision step is off)"})
		return decision{Retrieve: true}, nil
	}
	r.started(NodeDecide, "Deciding whether your documents are needed")
	r.round()
	d, err := llm.Structured[decision](ctx, r.a.llm, request("decide", promptDecide, "Question: "+r.st.question))
	switch {
	case errors.Is(err, llm.ErrInvalidOutput):
		r.a.log.Warn("agent: decide: unreadable answer, searching anyway", "err", err)
		r.rec.send(Event{Type: EventError, Node: NodeDecide, Error: "the decision was unreadable; searching the documents anyway"})
		d = decision{Retrieve: true}
	case err != nil:
		return decision{}, fmt.Errorf("agent: decide retrieval: %w", err)
	}
	if !r.cfg.Techniques.MultiQuery || !d.Retrieve {
		d.Queries = nil
	}
	if len(d.Queries) > maxExpansions {
		d.Queries = d.Queries[:maxExpansions]
	}
	summary := "The question needs no documents: answering from general knowledge"
	if d.Retrieve {
		summary = "Searching your documents"
	}
	r.finished(NodeDecide, summary)
	return d, nil
}

// directPrefix tells people where a direct answer comes from, whatever the model writes.
const directPrefix = "*From general knowledge, not from your documents:*\n\n"

// direct answers without retrieval and ends the run.
func (r *run) direct(ctx context.Context) error {
	r.started(NodeDirect, "Answering from general knowledge")
	r.round()
	r.st.direct = true
	r.emitToken(directPrefix)
	text, err := r.stream(ctx, request("direct", promptDirect, "Question: "+r.st.question))
	if err != nil {
		return fmt.Errorf("agent: direct answer: %w", err)
	}
	r.st.answer = directPrefix + strings.TrimSpace(text)
	r.finished(NodeDirect, "Answered from general knowledge")
	return nil
}
