package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/labstack/echo/v4"
)

// modelCreated is when the hopwise model "was created", as /v1/models must say something.
var modelCreated = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Unix()

// routesOpenAI adds the OpenAI-compatible endpoint that chat front ends (Open WebUI, LibreChat) and the
// openai client libraries call.
func (s *server) routesOpenAI(e *echo.Echo, askLimit echo.MiddlewareFunc) {
	g := e.Group("/v1", programAccess)
	g.GET("/models", s.in((*server).v1Models))
	g.POST("/chat/completions", s.in((*server).chatCompletions), askLimit)
}

func (s *server) v1Models(c echo.Context) error {
	return c.JSON(http.StatusOK, modelListJSON{Object: "list", Data: []modelJSON{{ID: modelID, Object: "model", Created: modelCreated, OwnedBy: "hopwise"}}})
}

// chatCompletions answers the last user message as a question, in a conversation whose earlier turns are
// the earlier messages (or in a stored conversation, with conversation_id). The answer's [n] markers cite
// the sources listed under it and given as data in citations; not_found says the documents do not answer.
func (s *server) chatCompletions(c echo.Context) error {
	ctx := c.Request().Context()
	var req chatRequest
	if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
		return echo.NewHTTPError(http.StatusBadRequest, `Send JSON: {"model": "hopwise", "messages": [{"role": "user", "content": "..."}]}.`)
	}
	if req.Model != "" && req.Model != modelID {
		return echo.NewHTTPError(http.StatusNotFound, fmt.Sprintf("The model %q does not exist: Hopwise offers the model %q.", req.Model, modelID))
	}
	last, earlier, err := splitMessages(req.Messages)
	if err != nil {
		return err
	}
	q, err := s.question(last)
	if err != nil {
		return err
	}
	scope := conversationScope(c)
	if req.Stream {
		if raw := c.Request().Header.Get("Last-Event-ID"); raw != "" {
			return s.resumeCompletion(c, req, q, raw)
		}
		t, err := s.askTurn(ctx, q, func() (graphrag.Conversation, error) {
			return s.completionConversation(ctx, scope, req.ConversationID, q, earlier)
		})
		if err != nil {
			return err
		}
		return s.streamCompletion(c, t, req, completionPos{seq: -1})
	}
	release, ok := s.asks.acquire()
	if !ok {
		return errTooBusy
	}
	defer release()
	conv, err := s.completionConversation(ctx, scope, req.ConversationID, q, earlier)
	if err != nil {
		return err
	}
	turn, res, err := s.Chat.Ask(ctx, conv.ID, q, func(agent.Event) {})
	release()
	if err != nil {
		return s.unfinished(ctx, conv.ID, err)
	}
	return c.JSON(http.StatusOK, newCompletion(turn, res))
}

// resumeCompletion goes on with a streamed completion after the chunk whose SSE id a reconnecting client
// sent as Last-Event-ID, in whichever process: the same turn's chunks, none twice; a finished turn's
// remaining answer at once.
func (s *server) resumeCompletion(c echo.Context, req chatRequest, q, lastEventID string) error {
	ctx := c.Request().Context()
	convID, turnID, pos, ok := parseCompletionID(lastEventID)
	if !ok {
		return echo.NewHTTPError(http.StatusBadRequest, "Last-Event-ID is not the id of a chunk Hopwise sent: send the request without it to ask anew.")
	}
	t, err := s.scopedTurn(ctx, conversationScope(c), convID, turnID)
	if err != nil {
		return err
	}
	if t.Question != q {
		return echo.NewHTTPError(http.StatusBadRequest, "Last-Event-ID names the answer to another question: send the request without it to ask anew.")
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
	return s.streamCompletion(c, t, req, pos)
}

// unfinished is the error of a run that did not end with an answer; its cause stays in the log.
func (s *server) unfinished(ctx context.Context, conversationID string, err error) error {
	if ctx.Err() != nil {
		return err // the client left, or the server is stopping: the error responder says which
	}
	s.Logger.Warn("openai: run failed", "conversation", conversationID, "err", err)
	return echo.NewHTTPError(http.StatusInternalServerError, "The answer could not be finished. Please try again; if it keeps failing, check the Status page.")
}

// splitMessages finds the question (the last message, which must be the user's) and the exchanges before
// it (each user message with the assistant's reply after it); system and tool messages are not read.
func splitMessages(msgs []chatMessage) (string, []agent.Exchange, error) {
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" {
		return "", nil, echo.NewHTTPError(http.StatusBadRequest, "The last message must be the user's question.")
	}
	var out []agent.Exchange
	pending := ""
	for _, m := range msgs[:len(msgs)-1] {
		switch m.Role {
		case "user":
			pending = strings.TrimSpace(m.text())
		case "assistant":
			if a := strings.TrimSpace(withoutSources(m.text())); pending != "" && a != "" {
				out = append(out, agent.Exchange{Question: pending, Answer: a})
			}
			pending = ""
		}
	}
	return msgs[len(msgs)-1].text(), out, nil
}

// maxEarlier bounds the exchanges of one request that are stored.
const maxEarlier = 50

// completionConversation is the stored conversation named by id; else the one the earlier exchanges
// continue (a chat front end sends the whole chat with every question, and the chat is one conversation);
// else a new one holding them as answered turns, so that a follow-up is read with them as on the chat page.
func (s *server) completionConversation(ctx context.Context, scope graphrag.ConversationScope, id, question string, earlier []agent.Exchange) (graphrag.Conversation, error) {
	if id != "" {
		return s.Chat.Start(ctx, scope, id, question)
	}
	if conv, ok, err := s.continuedConversation(ctx, scope, earlier); err != nil || ok {
		return conv, err
	}
	first := question
	if len(earlier) > 0 {
		first = earlier[0].Question
	}
	conv, err := s.Chat.Start(ctx, scope, "", first)
	if err != nil {
		return conv, err
	}
	earlier = earlier[max(0, len(earlier)-maxEarlier):]
	now := time.Now().UTC()
	for i, ex := range earlier {
		t := graphrag.Turn{ID: "t" + newID(), ConversationID: conv.ID, Ordinal: i + 1, Question: ex.Question, Answer: ex.Answer,
			Status: agent.TurnDone, CreatedAt: now.Add(time.Duration(i-len(earlier)) * time.Millisecond)}
		if err := s.Store.PutTurn(ctx, t); err != nil {
			return conv, err
		}
	}
	return conv, nil
}

// continuedCandidates bounds the recent conversations compared with a request's earlier exchanges.
const continuedCandidates = 20

// continuedConversation finds, among the conversations updated last, one whose turns are exactly the
// earlier exchanges, answered, among those of scope (a chat front end never continues another account's).
func (s *server) continuedConversation(ctx context.Context, scope graphrag.ConversationScope, earlier []agent.Exchange) (graphrag.Conversation, bool, error) {
	if len(earlier) == 0 {
		return graphrag.Conversation{}, false, nil
	}
	convs, err := s.Store.Conversations(ctx, scope)
	if err != nil {
		return graphrag.Conversation{}, false, err
	}
	seen := 0
	for _, c := range convs {
		if c.Turns != len(earlier) {
			continue
		}
		if seen++; seen > continuedCandidates {
			break
		}
		conv, turns, err := s.Store.Conversation(ctx, scope, c.ID)
		if err != nil {
			return graphrag.Conversation{}, false, err
		}
		if sameExchanges(turns, earlier) {
			return conv, true, nil
		}
	}
	return graphrag.Conversation{}, false, nil
}

func sameExchanges(turns []graphrag.Turn, earlier []agent.Exchange) bool {
	if len(turns) != len(earlier) {
		return false
	}
	for i, t := range turns {
		if t.Status != agent.TurnDone || t.Question != earlier[i].Question || strings.TrimSpace(t.Answer) != earlier[i].Answer {
			return false
		}
	}
	return true
}

func completionID(turn graphrag.Turn) string { return "chatcmpl-" + turn.ID }

// answerText is the answer with its sources listed under it, so that a client that shows only the text
// still says what each [n] is.
func answerText(res agent.Result) string {
	if len(res.Citations) == 0 {
		return res.Answer
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(res.Answer, "\n"))
	b.WriteString(sourcesHeading)
	for _, c := range res.Citations {
		fmt.Fprintf(&b, "[%d] %s\n", c.N, citationLabel(c))
	}
	return b.String()
}

// sourcesHeading starts the list of sources under an answer.
const sourcesHeading = "\n\nSources:\n"

// withoutSources is an answer this endpoint sent, as a client sends it back, without the list of sources.
func withoutSources(answer string) string {
	if i := strings.LastIndex(answer, sourcesHeading); i >= 0 {
		return answer[:i]
	}
	return answer
}

func citationLabel(c agent.Citation) string {
	switch {
	case c.Kind == agent.KindWeb:
		return strings.TrimSpace(c.Title + " " + c.URL)
	case c.Kind == agent.KindFact && c.DocName != "":
		return c.DocName + ": " + c.Sentence
	case c.Kind == agent.KindFact:
		return c.Sentence
	case c.Section != "":
		return c.DocName + " › " + c.Section
	default:
		return c.DocName
	}
}

func citationsOf(res agent.Result) []agent.Citation {
	if res.Citations == nil {
		return []agent.Citation{}
	}
	return res.Citations
}

func newCompletion(turn graphrag.Turn, res agent.Result) completionJSON {
	cs := citationsOf(res)
	return completionJSON{ID: completionID(turn), Object: "chat.completion", Created: turn.CreatedAt.Unix(), Model: modelID,
		Choices: []completionChoice{{Message: completionMessage{Role: "assistant", Content: answerText(res), Citations: cs}, FinishReason: "stop"}},
		Usage:   newUsage(res.Usage), Citations: cs,
		Hopwise: hopwiseJSON{ConversationID: turn.ConversationID, TurnID: turn.ID, NotFound: res.NotFound}}
}
