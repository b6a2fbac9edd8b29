package handlers

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// streamCompletion streams the answer to turn t as chat.completion.chunk events ending in "data: [DONE]".
// The turn's run goes on apart from the request, as the page's do (chat_runs.go), and the stream reads its
// events from the store. The answer's text is sent once the run has finished it: the agent audits its
// draft and may write it again, and a client cannot take back words it was sent. Meanwhile the stream
// stays open with pings and the agent's steps: as reasoning_content, which chat front ends show as a
// reasoning model's thinking and other clients ignore (unless hopwise_reasoning is false), and when asked
// (hopwise_steps) as chunks with no choices and a hopwise_event, for programs. The last chunk holds the
// finish reason, the citations, the usage and Hopwise's additions.
//
// The chunks are OpenAI's as they are; each event's SSE id names the turn and the chunk (completionPos),
// so a client that reconnects by sending the same request again with Last-Event-ID, to any process sharing
// the store, gets the chunks after that one instead of a new answer.
func (s *server) streamCompletion(c echo.Context, t graphrag.Turn, req chatRequest, after completionPos) error {
	ctx := c.Request().Context()
	sse := startSSE(c)
	id, created := completionID(t), t.CreatedAt.Unix()
	chunk := func(choices ...chunkChoice) chunkJSON {
		return chunkJSON{ID: id, Object: "chat.completion.chunk", Created: created, Model: modelID, Choices: append([]chunkChoice{}, choices...)}
	}
	send := func(pos completionPos, v any) error {
		if !pos.after(after) {
			return nil // the client had it
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return sse.dataID(pos.id(t), string(b))
	}
	if err := send(completionPos{}, chunk(chunkChoice{Delta: chunkDelta{Role: "assistant"}})); err != nil {
		return nil
	}
	reasoning := req.Reasoning == nil || *req.Reasoning
	if t.Status == agent.TurnRunning {
		ended := s.followRun(ctx, t.ID, max(after.seq, 0), runSink{ping: sse.ping, event: func(e agent.SeqEvent) error {
			step, ok := stepOf(e.Event)
			if !ok {
				return nil
			}
			if reasoning && step.Summary != "" {
				if err := send(completionPos{seq: e.Seq}, chunk(chunkChoice{Delta: chunkDelta{ReasoningContent: step.Summary + "\n"}})); err != nil {
					return err
				}
			}
			if !req.Steps {
				return nil
			}
			ch := chunk()
			ch.Event = &step
			return send(completionPos{seq: e.Seq, part: 1}, ch)
		}})
		if !ended {
			return nil
		}
		var err error
		if t, err = s.scopedTurn(ctx, conversationScope(c), t.ConversationID, t.ID); err != nil {
			t.Status = agent.TurnFailed // deleted meanwhile
		}
	}
	if t.Status != agent.TurnDone {
		s.Logger.Warn("openai: streamed run did not finish", "conversation", t.ConversationID, "turn", t.ID, "status", t.Status)
		_ = send(completionPos{answer: true, part: 1}, newOpenAIError(http.StatusInternalServerError, "The answer could not be finished. Please try again; if it keeps failing, check the Status page."))
		return nil
	}
	res := turnResult(t)
	parts := pieces(answerText(res), 48)
	for i, piece := range parts {
		if err := send(completionPos{answer: true, part: i + 1}, chunk(chunkChoice{Delta: chunkDelta{Content: piece}})); err != nil {
			return nil
		}
	}
	stop := "stop"
	final := chunk(chunkChoice{FinishReason: &stop})
	final.Usage, final.Citations = newUsage(res.Usage), citationsOf(res)
	final.Hopwise = &hopwiseJSON{ConversationID: t.ConversationID, TurnID: t.ID, NotFound: res.NotFound}
	if err := send(completionPos{answer: true, part: len(parts) + 1}, final); err != nil {
		return nil
	}
	_ = sse.data("[DONE]")
	return nil
}

// completionPos is where a chunk of a streamed completion stands: the role chunk (the zero value), the
// chunks of the run's event seq (part 0 its reasoning, 1 its step chunk), and the answer's (answer: part 1
// on, the final chunk last). Its SSE id is conversation/turn/position.
type completionPos struct {
	seq, part int
	answer    bool
}

func (p completionPos) id(t graphrag.Turn) string {
	at := fmt.Sprintf("%d.%d", p.seq, p.part)
	if p.answer {
		at = fmt.Sprintf("answer.%d", p.part)
	}
	return t.ConversationID + "/" + t.ID + "/" + at
}

// after reports whether p comes after q. An answer's chunks come after every event's.
func (p completionPos) after(q completionPos) bool {
	switch {
	case p.answer != q.answer:
		return p.answer
	case p.seq != q.seq:
		return p.seq > q.seq
	}
	return p.part > q.part
}

// parseCompletionID reads the SSE id of a chunk streamCompletion sent: the conversation, the turn and
// the position; ok is false for anything else.
func parseCompletionID(id string) (conversationID, turnID string, pos completionPos, ok bool) {
	f := strings.Split(id, "/")
	if len(f) != 3 || f[0] == "" || f[1] == "" {
		return "", "", pos, false
	}
	at, part, found := strings.Cut(f[2], ".")
	n, err := strconv.Atoi(part)
	if !found || err != nil || n < 0 {
		return "", "", pos, false
	}
	if at == "answer" {
		return f[0], f[1], completionPos{answer: true, part: n}, true
	}
	seq, err := strconv.Atoi(at)
	if err != nil || seq < 0 {
		return "", "", pos, false
	}
	return f[0], f[1], completionPos{seq: seq, part: n}, true
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
func (s *sseStream) data(payload string) error { return s.dataID("", payload) }

// dataID writes an event with no name and an id (none when empty), which a client reconnecting sends
// back as Last-Event-ID.
func (s *sseStream) dataID(id, payload string) error {
	out := "data: " + payload + "\n\n"
	if id != "" {
		out = "id: " + id + "\n" + out
	}
	if _, err := s.res.Write([]byte(out)); err != nil {
		return fmt.Errorf("sse: write data: %w", err)
	}
	s.res.Flush()
	return nil
}
