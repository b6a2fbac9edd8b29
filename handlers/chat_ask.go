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

// chatAsk takes a question. With htmx it answers at once with the running turn, whose stream starts the
// run; without JavaScript it answers within the request and then shows the conversation.
func (s *server) chatAsk(c echo.Context) error {
	ctx := c.Request().Context()
	q, err := s.question(c.FormValue("question"))
	if err != nil {
		return err
	}
	conv, err := s.Chat.Start(ctx, conversationScope(c), c.FormValue("conversation_id"), q)
	if err != nil {
		return err
	}
	convID := conv.ID
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
	r, ok := s.asks.add(convID, q, conversationScope(c))
	if !ok {
		return errTooBusy
	}
	convs, err := s.conversationLinks(c, convID)
	if err != nil {
		return err
	}
	convs, _ = pageOf(convs, 1, nil, "/", "cp", "Conversations")
	c.Response().Header().Set("HX-Push-Url", "/?c="+convID)
	return render(c, http.StatusOK, web.Asked(web.TurnView{Running: true, RunID: r.id, Question: q}, convID, convs, csrfToken(c)))
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
