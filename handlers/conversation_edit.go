package handlers

import (
	"net/http"
	"strings"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

func (s *server) conversationRename(c echo.Context) error {
	ctx := c.Request().Context()
	conv, _, err := s.Store.Conversation(ctx, conversationScope(c), c.Param("id"))
	if err != nil {
		return err
	}
	title := agent.ShortTitle(strings.TrimSpace(c.FormValue("title")), 120)
	if title == "" {
		return echo.NewHTTPError(http.StatusBadRequest, "Give the conversation a name.")
	}
	conv.Title = title
	if err := s.Store.PutConversation(ctx, conv); err != nil {
		return err
	}
	return redirect(c, "/?c="+conv.ID)
}

// conversationDelete deletes once confirmed: htmx confirms with a dialog, a form without JavaScript gets a
// page that asks first.
func (s *server) conversationDelete(c echo.Context) error {
	ctx := c.Request().Context()
	conv, _, err := s.Store.Conversation(ctx, conversationScope(c), c.Param("id"))
	if err != nil {
		return err
	}
	if c.FormValue("confirmed") != "yes" {
		return render(c, http.StatusOK, web.ConfirmView(web.ConfirmPage{
			Meta: meta(c, "Delete conversation", web.NavChat), Heading: "Delete the conversation “" + conv.Title + "”?",
			Text: "Its questions, answers and traces will be removed. Your documents stay.", Action: "/chat/conversations/" + conv.ID + "/delete",
			Confirm: "Delete it", Back: "/?c=" + conv.ID,
		}))
	}
	if err := s.Store.DeleteConversation(ctx, conversationScope(c), conv.ID); err != nil {
		return err
	}
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", "/")
		return c.NoContent(http.StatusOK)
	}
	return redirect(c, "/")
}

// passageRedirect leads from a chunk ID to its place in its document.
func (s *server) passageRedirect(c echo.Context) error {
	chunks, err := s.Store.Chunks(c.Request().Context(), []string{c.Param("id")})
	if err != nil {
		return err
	}
	if len(chunks) == 0 {
		return echo.NewHTTPError(http.StatusNotFound, "This passage is no longer stored; its document may have been deleted.")
	}
	return c.Redirect(http.StatusSeeOther, web.PassageURL(chunks[0].DocID, chunks[0].ID))
}
