package handlers

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

type askRequest struct {
	Question       string `json:"question"`
	ConversationID string `json:"conversation_id"`
}

type askResponse struct {
	ConversationID string       `json:"conversation_id"`
	TurnID         string       `json:"turn_id"`
	Status         string       `json:"status"`
	Result         agent.Result `json:"result"`
}

// apiAsk answers a question as JSON, or with Accept: text/event-stream as server-sent events whose names
// are the agent's event types and whose data is the event as JSON, ending with "done" (the askResponse).
// A streamed answer is run as the page's are (chat_runs.go): its events are stored as they happen and the
// stream reads them from the store, each with the number of the run's event as its SSE id; the response's
// Content-Location is the turn's events (apiTurnEvents), which any process sharing the store streams, from
// the event after Last-Event-ID when a client reconnects. The run goes on while a stream follows it, and is
// cancelled ReconnectGrace after the last one left.
func (s *server) apiAsk(c echo.Context) error {
	ctx := c.Request().Context()
	var req askRequest
	if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, `Send JSON: {"question": "...", "conversation_id": "optional"}.`)
	}
	q, err := s.question(req.Question)
	if err != nil {
		return err
	}
	if strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream") {
		return s.apiAskStream(c, req.ConversationID, q)
	}
	release, ok := s.asks.acquire()
	if !ok {
		return errTooBusy
	}
	defer release()
	conv, err := s.Chat.Start(ctx, conversationScope(c), req.ConversationID, q)
	if err != nil {
		return err
	}
	turn, res, err := s.Chat.Ask(ctx, conv.ID, q, func(agent.Event) {})
	release() // before the answer is sent: a client that asks again at once finds the place free
	if err != nil && turn.ID == "" {
		return err
	}
	return c.JSON(http.StatusOK, askResponse{ConversationID: conv.ID, TurnID: turn.ID, Status: turn.Status, Result: publicResult(res)})
}

// apiAskStream stores the question as an asked turn, starts its run in this process and streams it.
func (s *server) apiAskStream(c echo.Context, conversationID, q string) error {
	ctx := c.Request().Context()
	t, err := s.askTurn(ctx, q, func() (graphrag.Conversation, error) {
		return s.Chat.Start(ctx, conversationScope(c), conversationID, q)
	})
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Location", turnEventsPath(t))
	return s.streamTurnEvents(c, startSSE(c), t, 0)
}

// askTurn stores q as an asked turn of the conversation that conversation opens (Chat.Start, with the
// caller's scope), and claims it for this process, whose run starts answering it apart from the request:
// streams follow it from the store (followRun). A question over the cap of answers being written is
// refused before anything is stored.
func (s *server) askTurn(ctx context.Context, q string, conversation func() (graphrag.Conversation, error)) (graphrag.Turn, error) {
	id := agent.NewTurnID()
	if !s.asks.reserve(id) {
		return graphrag.Turn{}, errTooBusy
	}
	conv, err := conversation()
	if err != nil {
		s.asks.unreserve(id)
		return graphrag.Turn{}, err
	}
	t, err := s.Chat.Begin(ctx, id, conv.ID, q)
	if err != nil {
		s.asks.unreserve(id)
		return graphrag.Turn{}, err
	}
	t, busy, err := s.startRun(ctx, t)
	switch {
	case err != nil:
		return t, err
	case busy:
		return t, errTooBusy
	}
	return t, nil
}

// turnEventsPath is where a turn's events stream (apiTurnEvents).
func turnEventsPath(t graphrag.Turn) string {
	return "/api/v1/conversations/" + url.PathEscape(t.ConversationID) + "/turns/" + url.PathEscape(t.ID) + "/events"
}

// apiTurnEvents streams the events of a turn of a conversation the caller sees, as apiAsk does, from
// whichever process runs it: the events after Last-Event-ID (all without it) as they are written, then
// "done". A turn asked but not started yet (its stream never came) is started here; a finished one gets
// "done" at once.
func (s *server) apiTurnEvents(c echo.Context) error {
	ctx := c.Request().Context()
	t, err := s.scopedTurn(ctx, conversationScope(c), c.Param("id"), c.Param("turn"))
	if err != nil {
		return err
	}
	if t.Status == agent.TurnAsked {
		var busy bool
		if t, busy, err = s.startRun(ctx, t); err != nil {
			return err
		}
		if busy {
			return errTooBusy
		}
	}
	return s.streamTurnEvents(c, startSSE(c), t, lastEventID(c))
}

// streamTurnEvents sends the stored events of turn t after the numbered one, while it runs, then "done"
// with the turn as stored.
func (s *server) streamTurnEvents(c echo.Context, sse *sseStream, t graphrag.Turn, after int) error {
	ctx := c.Request().Context()
	if t.Status == agent.TurnRunning {
		ended := s.followRun(ctx, t.ID, after, runSink{ping: sse.ping, event: func(e agent.SeqEvent) error {
			b, err := json.Marshal(publicEvent(e.Event))
			if err != nil {
				return err
			}
			return sse.sendID(string(e.Type), strconv.Itoa(e.Seq), string(b))
		}})
		if !ended {
			return nil
		}
		var err error
		if t, err = s.scopedTurn(ctx, conversationScope(c), t.ConversationID, t.ID); err != nil {
			return nil // deleted meanwhile: there is no answer to send
		}
	}
	b, err := json.Marshal(askResponse{ConversationID: t.ConversationID, TurnID: t.ID, Status: t.Status, Result: publicResult(turnResult(t))})
	if err != nil {
		return err
	}
	_ = sse.send("done", string(b))
	return nil
}

// turnResult is the result a stored turn holds: its answer and citations, and the verdicts, cost and
// trace of its run.
func turnResult(t graphrag.Turn) agent.Result {
	trace, _ := agent.DecodeTrace(t.Trace)
	cites, _ := agent.DecodeCitations(t.Citations)
	var res agent.Result
	for _, ev := range trace {
		if ev.Result != nil {
			res = *ev.Result
		}
	}
	res.Question = cmp.Or(res.Question, t.Question)
	res.Answer, res.Citations, res.Trace = t.Answer, cites, trace
	return res
}

// publicEvent is an event as the JSON API shows it: a problem in plain words, as on the page, never the
// error chain with the model's address (that stays in the server log).
func publicEvent(ev agent.Event) agent.Event {
	if ev.Error != "" {
		ev.Error = problemText(ev.Error)
	}
	return ev
}

// publicResult is a result whose trace's problems are in plain words (publicEvent).
func publicResult(res agent.Result) agent.Result {
	trace := make([]agent.Event, len(res.Trace))
	for i, ev := range res.Trace {
		trace[i] = publicEvent(ev)
	}
	res.Trace = trace
	return res
}
