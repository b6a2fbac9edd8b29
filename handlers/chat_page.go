package handlers

import (
	"context"
	"fmt"
	"net/http"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// chatPage shows the conversations and, with ?c=ID, one conversation with its turns and traces.
func (s *server) chatPage(c echo.Context) error {
	ctx := c.Request().Context()
	p := web.ChatPage{Meta: meta(c, "Ask", web.NavChat), MaxQuestion: s.Limits.MaxQuestionChars}
	if id := c.QueryParam("c"); id != "" {
		conv, turns, err := s.Store.Conversation(ctx, conversationScope(c), id)
		if err != nil {
			return err
		}
		p.ConversationID, p.Title = conv.ID, conv.Title
		p.Meta.Title = conv.Title
		for _, t := range turns {
			if t, err = s.Chat.Settle(ctx, t); err != nil { // a turn whose server died shows as interrupted
				s.Logger.Warn("chat: settle a turn", "turn", t.ID, "err", err)
			}
			v := s.turnView(t)
			v.CSRF = p.Meta.CSRF
			p.Turns = append(p.Turns, v)
		}
	}
	convs, err := s.conversationLinks(c, p.ConversationID)
	if err != nil {
		return err
	}
	p.Conversations, p.ConvPager = pageOf(convs, pageNumber(c.QueryParam("cp")), c.QueryParams(), "/", "cp", "Conversations")
	if len(p.Turns) == 0 {
		if p.Examples, p.HasDocuments, err = s.examples(ctx); err != nil {
			return err
		}
	}
	return render(c, http.StatusOK, web.ChatView(p))
}

// conversationLinks lists the conversations of the request's scope.
func (s *server) conversationLinks(c echo.Context, current string) ([]web.ConversationLink, error) {
	convs, err := s.Store.Conversations(c.Request().Context(), conversationScope(c))
	if err != nil {
		return nil, err
	}
	out := make([]web.ConversationLink, len(convs))
	for i, cv := range convs {
		out[i] = web.ConversationLink{ID: cv.ID, Title: cv.Title, When: web.When(cv.UpdatedAt), Current: cv.ID == current}
	}
	return out, nil
}

// examples are questions to start with, built from the titles of the documents that are ready.
func (s *server) examples(ctx context.Context) ([]string, bool, error) {
	docs, err := s.Store.Documents(ctx)
	if err != nil {
		return nil, false, err
	}
	var titles []string
	for _, d := range docs {
		if d.Status == graphrag.StatusDone {
			titles = append(titles, cmpOr(d.Title, d.Name))
		}
	}
	var out []string
	for _, t := range titles[:min(3, len(titles))] {
		out = append(out, fmt.Sprintf("What are the key points of “%s”?", t))
	}
	if len(titles) >= 2 {
		out = append(out, fmt.Sprintf("How are “%s” and “%s” connected?", titles[0], titles[1]))
	}
	return out, len(docs) > 0, nil
}
