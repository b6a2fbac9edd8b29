package handlers

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// chatAsk takes a question. With htmx it answers at once with the asked turn, whose stream starts the
// run; without JavaScript it answers within the request and then shows the conversation.
func (s *server) chatAsk(c echo.Context) error {
	q, err := s.question(c.FormValue("question"))
	if err != nil {
		return err
	}
	conv, err := s.Chat.Start(c.Request().Context(), conversationScope(c), c.FormValue("conversation_id"), q)
	if err != nil {
		return err
	}
	return s.askIn(c, conv.ID, q)
}

// chatRetry asks the question of a failed or interrupted turn (?c= names its conversation) again, as a new
// turn of the conversation.
func (s *server) chatRetry(c echo.Context) error {
	t, err := s.scopedTurn(c.Request().Context(), conversationScope(c), c.QueryParam("c"), c.Param("turn"))
	if err != nil {
		return err
	}
	if t.Status != agent.TurnFailed && t.Status != agent.TurnInterrupted {
		return echo.NewHTTPError(http.StatusConflict, "Only an answer that failed or was interrupted can be asked again.")
	}
	return s.askIn(c, t.ConversationID, t.Question)
}

// askIn asks q in the conversation convID, which the caller's scope sees: with htmx the turn is stored as
// asked and the page gets it with its stream; without, it is answered within the request.
func (s *server) askIn(c echo.Context, convID, q string) error {
	ctx := c.Request().Context()
	if !isHTMX(c) {
		release, ok := s.asks.acquire()
		if !ok {
			return errTooBusy
		}
		defer release()
		_, _, err := s.Chat.Ask(ctx, convID, q, func(agent.Event) {})
		release()
		if err != nil && ctx.Err() == nil {
			s.Logger.Warn("chat: answer without javascript", "conversation", convID, "err", err)
		}
		return redirect(c, "/?c="+convID)
	}
	id := agent.NewTurnID()
	if !s.asks.reserve(id) {
		return errTooBusy
	}
	t, err := s.Chat.Begin(ctx, id, convID, q)
	if err != nil {
		s.asks.unreserve(id)
		return err
	}
	convs, err := s.conversationLinks(c, convID)
	if err != nil {
		return err
	}
	convs, _ = pageOf(convs, 1, nil, "/", "cp", "Conversations")
	c.Response().Header().Set("HX-Push-Url", "/?c="+convID)
	return render(c, http.StatusOK, web.Asked(s.turnView(t), convID, convs, csrfToken(c)))
}

// errTooBusy refuses a question when the cap of answers being written is reached.
var errTooBusy = echo.NewHTTPError(http.StatusServiceUnavailable, "Hopwise is answering many questions right now. Please ask again in a minute.")

// question checks a question's length; the cap bounds what one request can make the model read.
func (s *server) question(raw string) (string, error) {
	q := strings.TrimSpace(raw)
	switch {
	case q == "":
		return "", echo.NewHTTPError(http.StatusBadRequest, "Write a question first.")
	case utf8.RuneCountInString(q) > s.Limits.MaxQuestionChars:
		return "", echo.NewHTTPError(http.StatusRequestEntityTooLarge,
			fmt.Sprintf("Questions can be at most %d characters long. Please shorten it.", s.Limits.MaxQuestionChars))
	}
	return q, nil
}
