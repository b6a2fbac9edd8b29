package handlers

import (
	"cmp"
	"context"
	"errors"
	"net/http"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/mcpserver"
	"github.com/labstack/echo/v4"
)

const tooManyQuestions = "Too many questions in a short time: please wait a minute and ask again."

type clientKey struct{}

// scopeKey holds the conversation scope of an MCP request's principal (conversationScope).
type scopeKey struct{}

// routeMCP serves the MCP server over streamable HTTP at /mcp, behind the same middleware as every other
// route (host allow-list, body limits) and programAccess. It is stateless, so only POST is served; its
// questions count against the same per-client rate and the same cap of answers being written as the
// page's and the API's.
func (s *server) routeMCP(e *echo.Echo) {
	e.POST("/mcp", s.in(func(v *server, c echo.Context) error {
		r := c.Request()
		ctx := context.WithValue(context.WithValue(r.Context(), clientKey{}, c.RealIP()), scopeKey{}, conversationScope(c))
		v.mcp().ServeHTTP(c.Response(), r.WithContext(ctx))
		return nil
	}), programAccess)
}

// newMCPHandler is the MCP server over this view's workspace, made on its first question.
func (s *server) newMCPHandler() http.Handler {
	return mcpserver.HTTPHandler(mcpserver.New(mcpserver.Options{
		Service: s.service(), Chat: s.Chat, Runs: mcpRuns{s}, Logger: s.Logger, Admit: s.admitQuestion,
		MaxQuestionChars: s.Limits.MaxQuestionChars, Scope: mcpScope,
	}), s.Logger)
}

// admitQuestion lets an MCP question run when its client is within the rate; the cap of answers being
// written is the runs' (askTurn).
func (s *server) admitQuestion(ctx context.Context) (func(), error) {
	if ip, ok := ctx.Value(clientKey{}).(string); ok {
		if allowed, _ := s.askRate.Allow(ip); !allowed {
			return nil, errors.New("too many questions in a short time: please wait a minute and ask again")
		}
	}
	return func() {}, nil
}

// mcpRuns answers MCP's questions as the JSON API's streams do (apiAskStream): the turn is stored as asked,
// its run starts in this process with its events written to the store, and the call follows them from
// there (followRun), so the conversation list shows the question at once and the page, or the turn's
// events from any process, follows the answer while it is written.
type mcpRuns struct{ s *server }

func (r mcpRuns) Run(ctx context.Context, scope graphrag.ConversationScope, conversationID, q string, events func(agent.SeqEvent)) (graphrag.Turn, agent.Result, error) {
	s := r.s
	t, err := s.askTurn(ctx, q, func() (graphrag.Conversation, error) { return s.Chat.Start(ctx, scope, conversationID, q) })
	if errors.Is(err, errTooBusy) {
		return t, agent.Result{}, mcpserver.ErrBusy
	}
	if err != nil {
		return t, agent.Result{}, err
	}
	if t.Status == agent.TurnRunning {
		ended := s.followRun(ctx, t.ID, 0, runSink{
			event: func(e agent.SeqEvent) error { events(e); return nil },
			ping:  func() error { return nil },
		})
		if !ended {
			return t, agent.Result{}, cmp.Or(ctx.Err(), context.Canceled)
		}
	}
	if t, err = s.scopedTurn(ctx, scope, t.ConversationID, t.ID); err != nil {
		return t, agent.Result{}, err
	}
	return t, turnResult(t), nil
}

// mcpScope is the scope routeMCP put in the request; none (sees nothing) if it is missing.
func mcpScope(ctx context.Context) graphrag.ConversationScope {
	scope, _ := ctx.Value(scopeKey{}).(graphrag.ConversationScope)
	return scope
}
