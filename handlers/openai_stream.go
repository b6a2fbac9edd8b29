package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/labstack/echo/v4"
)

// streamCompletion streams an answer as chat.completion.chunk events ending in "data: [DONE]". The
// answer's text is sent once the run has finished it: the agent audits its draft and may write it again,
// and a client cannot take back words it was sent. Meanwhile the stream stays open with pings and, when
// the agent's steps: as reasoning_content, which chat front ends show as a reasoning model's thinking and
// other clients ignore (unless hopwise_reasoning is false), and when asked (hopwise_steps) as chunks with
// no choices and a hopwise_event, for programs. The last chunk holds the finish reason, the citations, the
// usage and Hopwise's additions.
func (s *server) streamCompletion(c echo.Context, conversationID, question string, req chatRequest, release func()) error {
	ctx := c.Request().Context()
	sse := startSSE(c)
	id, created := "chatcmpl-"+newID(), time.Now().Unix()
	chunk := func(choices ...chunkChoice) chunkJSON {
		return chunkJSON{ID: id, Object: "chat.completion.chunk", Created: created, Model: modelID, Choices: append([]chunkChoice{}, choices...)}
	}
	send := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return sse.data(string(b))
	}
	if err := send(chunk(chunkChoice{Delta: chunkDelta{Role: "assistant"}})); err != nil {
		return nil
	}
	reasoning := req.Reasoning == nil || *req.Reasoning
	sink := eventSink{event: func(ev agent.Event) error {
		step, ok := stepOf(ev)
		if !ok {
			return nil
		}
		if reasoning && step.Summary != "" {
			if err := send(chunk(chunkChoice{Delta: chunkDelta{ReasoningContent: step.Summary + "\n"}})); err != nil {
				return err
			}
		}
		if !req.Steps {
			return nil
		}
		ch := chunk()
		ch.Event = &step
		return send(ch)
	}}
	o, gone := s.pumpAnswer(ctx, sse, conversationID, question, sink)
	release()
	if gone {
		return nil
	}
	if o.err != nil {
		s.Logger.Warn("openai: streamed run failed", "conversation", conversationID, "err", o.err)
		_ = send(newOpenAIError(http.StatusInternalServerError, "The answer could not be finished. Please try again; if it keeps failing, check the Status page."))
		return nil
	}
	for _, piece := range pieces(answerText(o.result), 48) {
		if err := send(chunk(chunkChoice{Delta: chunkDelta{Content: piece}})); err != nil {
			return nil
		}
	}
	stop := "stop"
	final := chunk(chunkChoice{FinishReason: &stop})
	final.Usage, final.Citations = newUsage(o.result.Usage), citationsOf(o.result)
	final.Hopwise = &hopwiseJSON{ConversationID: conversationID, TurnID: o.turn.ID, NotFound: o.result.NotFound}
	if err := send(final); err != nil {
		return nil
	}
	_ = sse.data("[DONE]")
	return nil
}

// stepOf is an event as a step chunk shows it: the answer's own events (its tokens, restarts, cost and the
// result) are not steps, and problems are in plain words.
func stepOf(ev agent.Event) (stepJSON, bool) {
	switch ev.Type {
	case agent.EventToken, agent.EventAnswerReset, agent.EventUsage, agent.EventAnswer:
		return stepJSON{}, false
	}
	summary := ev.Summary
	switch {
	case ev.Error != "":
		summary = publicEvent(ev).Error
	case summary == "" && len(ev.Queries) > 0:
		summary = "Searching for: " + strings.Join(ev.Queries, "; ")
	case summary == "" && ev.Hypothesis != "":
		summary = ev.Hypothesis
	}
	return stepJSON{Type: string(ev.Type), Node: ev.Node, Summary: summary}, true
}

// pieces cuts text after spaces into pieces of about n bytes.
func pieces(text string, n int) []string {
	var out []string
	var b strings.Builder
	for _, w := range strings.SplitAfter(text, " ") {
		b.WriteString(w)
		if b.Len() >= n {
			out = append(out, b.String())
			b.Reset()
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// data writes one server-sent event with no name, as OpenAI's streams are: "data: " and payload, which
// must be one line (JSON is).
func (s *sseStream) data(payload string) error {
	if _, err := s.res.Write([]byte("data: " + payload + "\n\n")); err != nil {
		return fmt.Errorf("sse: write data: %w", err)
	}
	s.res.Flush()
	return nil
}
