package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

// Input is one question, with the earlier exchanges of its conversation (oldest first) when it is a
// follow-up.
type Input struct {
	Question string
	History  []Exchange
}

// Exchange is an earlier question and its answer.
type Exchange struct{ Question, Answer string }

type standalone struct {
	Question string `json:"question" description:"the latest message as one standalone question" maxLength:"300"`
}

func (s standalone) Validate() error {
	if strings.TrimSpace(s.Question) == "" {
		return errors.New("question is empty")
	}
	return nil
}

// maxHistory bounds the earlier exchanges shown to the condense call.
const maxHistory = 4

// condense turns a follow-up into a standalone question. An unreadable answer keeps the question as asked.
func (r *run) condense(ctx context.Context) error {
	r.started(NodeCondense, "Reading the question in the light of the conversation")
	r.round()
	hist := r.in.History[max(0, len(r.in.History)-maxHistory):]
	var b strings.Builder
	b.WriteString("<conversation>\n")
	for _, x := range hist {
		b.WriteString("User: " + quote(clip(x.Question, 600)) + "\n")
		b.WriteString("Assistant: " + quote(clip(x.Answer, 1200)) + "\n")
	}
	b.WriteString("</conversation>\n\nLatest message: " + r.in.Question)
	s, err := llm.Structured[standalone](ctx, r.a.llm, request("condense", promptCondense, b.String()))
	switch {
	case errors.Is(err, llm.ErrInvalidOutput):
		r.rec.send(Event{Type: EventError, Node: NodeCondense, Error: "could not rephrase the follow-up; using it as asked"})
		s.Question = r.in.Question
	case err != nil:
		return fmt.Errorf("agent: condense follow-up: %w", err)
	}
	r.st.question = strings.TrimSpace(s.Question)
	r.finished(NodeCondense, "Question: "+clip(r.st.question, 160))
	return nil
}
