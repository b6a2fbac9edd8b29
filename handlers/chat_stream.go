package handlers

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// answerEvery is how often the growing answer is rendered and sent: tokens arrive faster than people read.
const answerEvery = 120 * time.Millisecond

// chatStream streams the answer to a question asked through the page (/chat/stream/{turn}?c={conversation}):
// "answer" (the answer so far, rendered), "status" (what it is doing, or its place in line while the model
// is busy), "step" (a line of the trace; "steps" replaces them all), "usage" (the cost) and finally "done"
// (the whole turn as stored), which closes the page's EventSource. Every event but done has the number of
// the run's last event it reflects as its SSE id: a stream that reconnects with Last-Event-ID gets what
// came after it, one without (a reloaded page, a new EventSource) everything so far. The first stream to
// reach an asked turn starts its run in this process (chat_runs.go); any stream, in any process sharing the
// store, follows it from the stored events.
func (s *server) chatStream(c echo.Context) error {
	ctx := c.Request().Context()
	id, scope := c.Param("run"), conversationScope(c)
	t, err := s.scopedTurn(ctx, scope, c.QueryParam("c"), id)
	sse := startSSE(c)
	if err != nil {
		if !errors.Is(err, graphrag.ErrNotFound) && ctx.Err() == nil {
			s.Logger.Warn("chat: open a turn's stream", "turn", id, "err", err)
		}
		return s.sendDone(ctx, sse, web.TurnGone(id, ""))
	}
	if t.Status == agent.TurnAsked {
		var busy bool
		if t, busy, err = s.startRun(ctx, t); err != nil {
			s.Logger.Warn("chat: start an answer", "turn", id, "err", err)
			return s.sendDone(ctx, sse, web.Turn(web.TurnView{ID: t.ID, Question: t.Question, NoticeBad: true,
				Notice: "This answer could not be started. Reload the page to try again; if it keeps failing, check the Status page."}))
		}
		if busy {
			return s.sendDone(ctx, sse, web.Turn(web.TurnView{ID: t.ID, Question: t.Question, NoticeBad: true,
				Notice: "Hopwise is answering many questions right now. Reload the page in a minute to have this one answered."}))
		}
	}
	if t.Status != agent.TurnRunning {
		return s.sendDone(ctx, sse, web.Turn(s.turnView(t)))
	}
	return s.streamRun(c, sse, scope, t, lastEventID(c))
}

// lastEventID is the number of the last event a reconnecting stream received; 0 for a new one.
func lastEventID(c echo.Context) int {
	n, err := strconv.Atoi(strings.TrimSpace(c.Request().Header.Get("Last-Event-ID")))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// scopedTurn reads turn id of a conversation scope sees, settled (agent.Chat.Settle): a turn whose process
// died reads as interrupted. Another scope's turn is graphrag.ErrNotFound.
func (s *server) scopedTurn(ctx context.Context, scope graphrag.ConversationScope, conversationID, id string) (graphrag.Turn, error) {
	if conversationID == "" || id == "" {
		return graphrag.Turn{}, graphrag.ErrNotFound
	}
	_, turns, err := s.Store.Conversation(ctx, scope, conversationID)
	if err != nil {
		return graphrag.Turn{}, err
	}
	for _, t := range turns {
		if t.ID == id {
			return s.Chat.Settle(ctx, t)
		}
	}
	return graphrag.Turn{}, graphrag.ErrNotFound
}

// streamRun follows a running turn from its stored events, after those the client received, until its run
// ends (the turn as stored is sent) or the client leaves.
func (s *server) streamRun(c echo.Context, sse *sseStream, scope graphrag.ConversationScope, t graphrag.Turn, after int) error {
	ctx := c.Request().Context()
	st := &streamState{sse: sse, prefix: citePrefix(t.ID), after: after}
	if after == 0 { // a page whose earlier stream showed steps (a new EventSource) shows them once
		if err := sse.send("steps", ""); err != nil {
			return nil
		}
	}
	// Every event is read (the answer so far is rebuilt from them); those the client had are not sent.
	ended := s.followRun(ctx, t.ID, 0, runSink{
		event:    func(e agent.SeqEvent) error { return st.add(ctx, e) },
		caughtUp: st.caughtUp, flush: st.flushAnswer, flushEvery: answerEvery, ping: sse.ping,
	})
	if !ended {
		return nil
	}
	_ = st.flushAnswer()
	final, err := s.scopedTurn(ctx, scope, t.ConversationID, t.ID)
	if err != nil {
		return s.sendDone(ctx, sse, web.TurnGone(t.ID, t.Question))
	}
	return s.sendDone(ctx, sse, web.Turn(s.turnView(final)))
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

// chatStop cancels the answer to a turn of a conversation the caller sees (?c=), in whichever process
// writes it; its stream then sends the turn as far as it got.
func (s *server) chatStop(c echo.Context) error {
	ctx := c.Request().Context()
	id := c.Param("run")
	t, err := s.scopedTurn(ctx, conversationScope(c), c.QueryParam("c"), id)
	if err != nil || (t.Status != agent.TurnRunning && t.Status != agent.TurnAsked) {
		return echo.NewHTTPError(http.StatusNotFound, "This answer has already finished.")
	}
	stopped, err := s.Chat.Stop(ctx, id)
	if err != nil {
		return err
	}
	if !stopped {
		return echo.NewHTTPError(http.StatusNotFound, "This answer has already finished.")
	}
	return render(c, http.StatusOK, web.StopRequested())
}

// streamState is what a stream has received of a run: the answer, the status line and the steps so far,
// sent as they come after the event the client had (after), and the number of the last event read (seq).
type streamState struct {
	sse     *sseStream
	prefix  string
	after   int
	seq     int
	answer  strings.Builder
	dirty   bool
	flushed time.Time
	status  string // the status line of the step under way, shown again when a wait in line is over
	line    string // the status line shown now
}

// add reads one stored event: those the client had are only taken in, the others sent.
func (st *streamState) add(ctx context.Context, e agent.SeqEvent) error {
	st.seq = e.Seq
	if e.Seq <= st.after {
		st.takeIn(e.Event)
		return nil
	}
	return st.event(ctx, e.Event)
}

// caughtUp ends the replay of what was stored when the stream opened: a reconnecting client gets the
// answer and status line as they are now, since what it had may have been sent before its last event.
func (st *streamState) caughtUp() error {
	if st.after > 0 {
		st.dirty = st.answer.Len() > 0
		if st.line != "" {
			if err := st.send("status", templ.EscapeString(st.line)); err != nil {
				return err
			}
		}
	}
	return st.flushAnswer()
}

// takeIn updates the answer and status line with an event, sending nothing.
func (st *streamState) takeIn(ev agent.Event) {
	switch ev.Type {
	case agent.EventToken:
		st.answer.WriteString(ev.Delta)
	case agent.EventAnswerReset:
		st.answer.Reset()
	case agent.EventNodeStarted:
		st.status = statusText(ev)
		st.line = st.status
	case agent.EventQueued:
		st.line = queueText(ev, st.status)
	}
}

func (st *streamState) event(ctx context.Context, ev agent.Event) error {
	st.takeIn(ev)
	switch ev.Type {
	case agent.EventToken:
		st.dirty = true
		if time.Since(st.flushed) >= answerEvery {
			return st.flushAnswer() // the first words show at once; later ones at most every answerEvery
		}
		return nil
	case agent.EventAnswerReset:
		st.dirty = true
		return nil
	case agent.EventNodeStarted, agent.EventQueued:
		return st.send("status", templ.EscapeString(st.line))
	case agent.EventUsage:
		return st.send("usage", templ.EscapeString(costText(ev.Usage)))
	}
	step, ok := stepView(ev)
	if !ok {
		return nil
	}
	html, err := renderString(ctx, web.Step(step))
	if err != nil {
		return err
	}
	return st.send("step", html)
}

func (st *streamState) flushAnswer() error {
	if !st.dirty {
		return nil
	}
	st.dirty, st.flushed = false, time.Now()
	return st.send("answer", web.RenderMarkdown(st.answer.String(), st.prefix))
}

// send sends an event with the number of the last run event read as its id.
func (st *streamState) send(event, data string) error {
	return st.sse.sendID(event, strconv.Itoa(st.seq), data)
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
