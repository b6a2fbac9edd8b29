// Package mcpserver offers Hopwise as a Model Context Protocol server (the official Go SDK): the tools
// search, ask, list_documents, get_passage and graph_neighbourhood, each a thin adapter over apiv1's
// operations and agent.Chat. The same server runs over stdio (`hopwise mcp`) and streamable HTTP (/mcp,
// behind the web server's access rules).
package mcpserver

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Asker opens the conversation a question continues (within scope), or starts one when the ID is empty,
// and answers in it, storing the turn (agent.Chat).
type Asker interface {
	Start(ctx context.Context, scope graphrag.ConversationScope, conversationID, question string) (graphrag.Conversation, error)
	Ask(ctx context.Context, conversationID, question string, emit func(agent.Event)) (graphrag.Turn, agent.Result, error)
}

// Runner answers a question as the page and the JSON API's streams do (a web server's runs): Run stores
// question as a turn of the conversation conversationID opens (a new one, owned by scope's account, when
// it is empty; graphrag.ErrNotFound for one outside scope), starts its run apart from the call, its events
// written to the store as they happen, and hands each stored event to events, in order, as it is written.
// It returns once the run ended, with the turn as stored and its result; a ctx that ends first returns
// ctx's error, and the run goes on for as long as a stream that follows it would (the page, or
// GET /api/v1/conversations/{id}/turns/{turn}/events from any process sharing the store, can follow it).
// A question refused because too many are being answered is ErrBusy.
type Runner interface {
	Run(ctx context.Context, scope graphrag.ConversationScope, conversationID, question string, events func(agent.SeqEvent)) (graphrag.Turn, agent.Result, error)
}

// ErrBusy is a Runner's refusal of a question while too many are being answered.
var ErrBusy = errors.New("mcpserver: too many questions are being answered")

// Options are what the tools need.
type Options struct {
	Service apiv1.Service
	Chat    Asker
	// Runs, when set, answers ask's questions instead of Chat.Ask within the call: their turns and events
	// are in the store from the start, so the conversation list shows them and any process follows them.
	Runs    Runner
	Logger  *slog.Logger
	Version string
	// Admit is asked before a question is answered: it returns the function that frees the place, or an
	// error in plain words (too many questions, the server busy). Nil admits every question.
	Admit func(ctx context.Context) (release func(), err error)
	// MaxQuestionChars bounds a question (2000 when zero).
	MaxQuestionChars int
	// Scope is whose conversations a call may continue (the account the HTTP request signed in as). Nil
	// is every conversation: over stdio the user runs the server on their own store.
	Scope func(ctx context.Context) graphrag.ConversationScope
}

// New returns the MCP server with Hopwise's tools.
func New(o Options) *mcp.Server {
	o.Logger = cmp.Or(o.Logger, slog.New(slog.DiscardHandler))
	o.MaxQuestionChars = cmp.Or(o.MaxQuestionChars, 2000)
	if o.Scope == nil {
		o.Scope = func(context.Context) graphrag.ConversationScope { return graphrag.AllConversations }
	}
	if o.Admit == nil {
		o.Admit = func(context.Context) (func(), error) { return func() {}, nil }
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "hopwise", Title: "Hopwise", Version: cmp.Or(o.Version, "dev")},
		&mcp.ServerOptions{
			Instructions: "Hopwise answers questions from the user's own documents, with citations, and says when " +
				"the documents do not answer. Use search to find passages and graph facts, ask for a researched " +
				"answer with numbered citations, get_passage to read a cited passage in full.",
			Capabilities: &mcp.ServerCapabilities{},
		})
	t := tools{o}
	t.add(srv)
	return srv
}

// HTTPHandler serves srv over streamable HTTP, statelessly: every request stands alone, so nothing is kept
// between requests and a client that vanishes leaves nothing behind. It does no access check of its own:
// the web server's middleware (host allow-list, origin checks, future tokens) guards the route, and the
// SDK's own localhost check is off because that allow-list already refuses foreign Host headers and knows
// the public names a proxy may use.
func HTTPHandler(srv *mcp.Server, logger *slog.Logger) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: logger, DisableLocalhostProtection: true,
	})
}

// ServeIO serves srv over newline-delimited JSON-RPC on in and out (a process's standard input and output,
// as MCP's stdio transport is) until the client closes in or ctx ends.
func ServeIO(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer) error {
	return srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopCloser{out}})
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
