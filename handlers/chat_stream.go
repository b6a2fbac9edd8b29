package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// answerEvery is how often the growing answer is rendered and sent: tokens arrive faster than people read.
const answerEvery = 120 * time.Millisecond

// chatStream runs a question asked through the page and streams it: "answer" (the answer so far, rendered),
// "status" (what it is doing, or its place in line while the model is busy), "step" (a line of the trace),
// "usage" (the cost) and finally "done" (the whole turn as stored), which closes the page's EventSource. The
// run lives in this request: a closed tab or the stop button cancels it.
func (s *server) chatStream(c echo.Context) error {
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	r, state := s.asks.claim(c.Param("run"), conversationScope(c), cancel)
	sse := startSSE(c)
	switch state {
	case askClaimed:
		return s.streamAsk(ctx, sse, r)
	case askFinished:
		return s.sendStoredTurn(ctx, sse, r)
	default: // unknown, or another stream is writing it: end this one so it does not reconnect
		return s.sendDone(ctx, sse, web.TurnGone(c.Param("run"), ""))
	}
}

// streamAsk answers a claimed question over its stream and ends with the turn as stored.
func (s *server) streamAsk(ctx context.Context, sse *sseStream, r parkedAsk) error {
	st := &streamState{sse: sse, prefix: citePrefix(r.id)}
	sink := eventSink{event: func(ev agent.Event) error { return st.event(ctx, ev) }, flush: st.flushAnswer, flushEvery: answerEvery}
	o, gone := s.pumpAnswer(ctx, sse, r.conversationID, r.question, sink)
	s.asks.finish(r.id, o.turn.ID)
	if gone {
		return nil
	}
	return s.sendDone(ctx, sse, web.Turn(s.finalTurn(r, st.answer.String(), o)))
}

// finalTurn is the turn as stored by the agent or, when it could not be stored, what the page saw of it.
func (s *server) finalTurn(r parkedAsk, partial string, o answerOutcome) web.TurnView {
	if o.turn.ID != "" {
		return s.turnView(o.turn)
	}
	v := web.TurnView{ID: r.id, Question: r.question, AnswerMD: partial, NoticeBad: true}
	switch {
	case errors.Is(o.err, context.Canceled):
		v.Notice, v.NoticeBad = "You stopped this answer; what you see is as far as it got.", false
	case o.err != nil:
		s.Logger.Warn("chat: run failed", "run", r.id, "err", o.err)
		v.Notice = "This answer could not be finished. Please try again; if it keeps failing, check the Status page."
	}
	return v
}

// sendStoredTurn answers a reconnecting stream with the turn that run produced.
func (s *server) sendStoredTurn(ctx context.Context, sse *sseStream, r parkedAsk) error {
	_, turns, err := s.Store.Conversation(ctx, r.scope, r.conversationID)
	if err != nil {
		return s.sendDone(ctx, sse, web.TurnGone(r.id, r.question))
	}
	for _, t := range turns {
		if t.ID == r.turnID {
			return s.sendDone(ctx, sse, web.Turn(s.turnView(t)))
		}
	}
	return s.sendDone(ctx, sse, web.TurnGone(r.id, r.question))
}

// sendDone sends the final turn, also after the run was cancelled.
func (s *server) sendDone(ctx context.Context, sse *sseStream, comp templ.Component) error {
	html, err := renderString(ctx, comp)
	if err != nil {
		return err
	}
	_ = sse.send("done", html)
	return nil
}

// chatStop cancels a run; its stream then sends the turn as far as it got.
func (s *server) chatStop(c echo.Context) error {
	if !s.asks.stop(c.Param("run"), conversationScope(c)) {
		return echo.NewHTTPError(http.StatusNotFound, "This answer has already finished.")
	}
	return render(c, http.StatusOK, web.StopRequested())
}

// streamState is what a stream has sent so far.
type streamState struct {
	sse     *sseStream
	prefix  string
	answer  strings.Builder
	dirty   bool
	flushed time.Time
	status  string // the status line of the step under way, shown again when a wait in line is over
}

func (st *streamState) event(ctx context.Context, ev agent.Event) error {
	switch ev.Type {
	case agent.EventToken:
		st.answer.WriteString(ev.Delta)
		st.dirty = true
		if time.Since(st.flushed) >= answerEvery {
			return st.flushAnswer() // the first words show at once; later ones at most every answerEvery
		}
		return nil
	case agent.EventAnswerReset:
		st.answer.Reset()
		st.dirty = true
		return nil
	case agent.EventNodeStarted:
		st.status = statusText(ev)
		return st.sse.send("status", templ.EscapeString(st.status))
	case agent.EventQueued:
		return st.sse.send("status", templ.EscapeString(queueText(ev, st.status)))
	case agent.EventUsage:
		return st.sse.send("usage", templ.EscapeString(costText(ev.Usage)))
	}
	step, ok := stepView(ev)
	if !ok {
		return nil
	}
	html, err := renderString(ctx, web.Step(step))
	if err != nil {
		return err
	}
	return st.sse.send("step", html)
}

func (st *streamState) flushAnswer() error {
	if !st.dirty {
		return nil
	}
	st.dirty, st.flushed = false, time.Now()
	return st.sse.send("answer", web.RenderMarkdown(st.answer.String(), st.prefix))
}

// renderString renders into memory. Rendering goes on after a run was cancelled (its last steps and the
// stopped turn are still sent), so only a failed write means the client is gone.
func renderString(ctx context.Context, comp templ.Component) (string, error) {
	var buf bytes.Buffer
	if err := comp.Render(context.WithoutCancel(ctx), &buf); err != nil {
		return "", err
	}
	return buf.String(), nil
}
