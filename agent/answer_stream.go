package agent

import (
	"context"

	"github.com/hopwise/hopwise/llm"
)

// stream runs a streamed call whose deltas become token events, and returns the whole text.
func (r *run) stream(ctx context.Context, req llm.Request) (string, error) {
	req.MaxTokens = maxAnswerTokens
	resp, err := r.a.llm.Stream(ctx, req, func(delta string) error {
		r.emitToken(delta)
		return nil
	})
	if err != nil {
		return "", err
	}
	return resp.Content, nil
}

// maxAnswerTokens bounds one streamed answer.
const maxAnswerTokens = 1500

func (r *run) emitToken(delta string) {
	r.st.streamed = true
	r.st.shown.WriteString(delta)
	r.rec.send(Event{Type: EventToken, Delta: delta})
}

// resetAnswer tells stream consumers that the text streamed so far is replaced.
func (r *run) resetAnswer(why string) {
	if r.st.streamed {
		r.rec.send(Event{Type: EventAnswerReset, Summary: why})
	}
	r.st.shown.Reset()
}
