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
	release, ok := s.runs.acquire()
	if !ok {
		return errTooBusy
	}
	defer release()
	convID, err := s.conversationFor(ctx, req.ConversationID, q)
	if err != nil {
		return err
	}
	if !strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream") {
		turn, res, err := s.Chat.Ask(ctx, convID, q, func(agent.Event) {})
		release() // before the answer is sent: a client that asks again at once finds the place free
		if err != nil && turn.ID == "" {
			return err
		}
		return c.JSON(http.StatusOK, askResponse{ConversationID: convID, TurnID: turn.ID, Status: turn.Status, Result: publicResult(res)})
	}
	sse := startSSE(c)
	events := make(chan agent.Event, 64)
	done := make(chan askResponse, 1)
	go func() {
		turn, res, _ := s.Chat.Ask(ctx, convID, q, func(ev agent.Event) {
			select {
			case events <- ev:
			case <-ctx.Done():
			}
		})
		done <- askResponse{ConversationID: convID, TurnID: turn.ID, Status: turn.Status, Result: publicResult(res)}
	}()
	for {
		select {
		case ev := <-events:
			b, _ := json.Marshal(publicEvent(ev))
			_ = sse.send(string(ev.Type), string(b))
		case r := <-done:
			release()
			for len(events) > 0 {
				ev := <-events
				b, _ := json.Marshal(publicEvent(ev))
				_ = sse.send(string(ev.Type), string(b))
			}
			b, _ := json.Marshal(r)
			_ = sse.send("done", string(b))
			return nil
		}
	}
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
