package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hopwise/hopwise/agent"
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
// Closing the connection cancels the run.
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
	release, ok := s.asks.acquire()
	if !ok {
		return errTooBusy
	}
	defer release()
	conv, err := s.Chat.Start(ctx, conversationScope(c), req.ConversationID, q)
	if err != nil {
		return err
	}
	if !strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream") {
		turn, res, err := s.Chat.Ask(ctx, conv.ID, q, func(agent.Event) {})
		release() // before the answer is sent: a client that asks again at once finds the place free
		if err != nil && turn.ID == "" {
			return err
		}
		return c.JSON(http.StatusOK, askResponse{ConversationID: conv.ID, TurnID: turn.ID, Status: turn.Status, Result: publicResult(res)})
	}
	sse := startSSE(c)
	send := func(event string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return sse.send(event, string(b))
	}
	sink := eventSink{event: func(ev agent.Event) error { return send(string(ev.Type), publicEvent(ev)) }}
	o, gone := s.pumpAnswer(ctx, sse, conv.ID, q, sink)
	release()
	if !gone {
		_ = send("done", askResponse{ConversationID: conv.ID, TurnID: o.turn.ID, Status: o.turn.Status, Result: publicResult(o.result)})
	}
	return nil
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
