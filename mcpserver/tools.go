package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type tools struct{ Options }

type searchIn struct {
	Query string `json:"query" jsonschema:"what to look for, in words"`
	K     int    `json:"k,omitempty" jsonschema:"passages to return (default 10, at most 50)"`
}

type askIn struct {
	Question       string `json:"question" jsonschema:"the question, as a person would ask it"`
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"continue this conversation (from an earlier answer)"`
}

type listIn struct {
	Offset int `json:"offset,omitempty" jsonschema:"documents to skip"`
	Limit  int `json:"limit,omitempty" jsonschema:"documents to return (default 50, at most 200)"`
}

type passageIn struct {
	ID string `json:"id" jsonschema:"a passage ID, as search results and citations give them (chunk_id)"`
}

type neighbourhoodIn struct {
	Entity string `json:"entity" jsonschema:"an entity's name or key"`
	Hops   int    `json:"hops,omitempty" jsonschema:"1 (default) or 2"`
}

func readOnly(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true}
}

func (t tools) add(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "search", Annotations: readOnly("Search the documents"),
		Description: "Hybrid search (keywords and meaning) over the user's documents, fused with a walk of their " +
			"knowledge graph: the best passages, and the graph facts that join the things the query names."},
		t.search)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Annotations: &mcp.ToolAnnotations{Title: "Ask a question", OpenWorldHint: new(false)},
		Description: "Research a question in the user's documents and answer it in markdown, citing sources as [n] " +
			"(the citations list them). not_found is true when the documents do not answer it. Takes up to a few minutes."},
		t.ask)
	mcp.AddTool(srv, &mcp.Tool{Name: "list_documents", Annotations: readOnly("List the documents"),
		Description: "The user's documents, newest first, a page at a time, with their ingest status."},
		t.listDocuments)
	mcp.AddTool(srv, &mcp.Tool{Name: "get_passage", Annotations: readOnly("Read a passage"),
		Description: "One passage in full by its ID, with its document and section."},
		t.getPassage)
	mcp.AddTool(srv, &mcp.Tool{Name: "graph_neighbourhood", Annotations: readOnly("Explore the knowledge graph"),
		Description: "The relations around an entity of the knowledge graph (1 or 2 hops), with the entities they join."},
		t.graphNeighbourhood)
}

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, apiv1.SearchResult, error) {
	res, err := t.Service.Search(ctx, in.Query, in.K)
	return nil, res, t.problem("search", err)
}

func (t tools) listDocuments(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, apiv1.DocumentPage, error) {
	page, err := t.Service.Documents(ctx, in.Offset, in.Limit)
	return nil, page, t.problem("list_documents", err)
}

func (t tools) getPassage(ctx context.Context, _ *mcp.CallToolRequest, in passageIn) (*mcp.CallToolResult, apiv1.Passage, error) {
	p, err := t.Service.Passage(ctx, in.ID)
	return nil, p, t.problem("get_passage", err)
}

func (t tools) graphNeighbourhood(ctx context.Context, _ *mcp.CallToolRequest, in neighbourhoodIn) (*mcp.CallToolResult, apiv1.Neighbourhood, error) {
	e, err := t.Service.Entity(ctx, in.Entity)
	if err != nil {
		return nil, apiv1.Neighbourhood{}, t.problem("graph_neighbourhood", err)
	}
	n, err := t.Service.Neighbourhood(ctx, []string{e.Key}, max(in.Hops, 1), 0)
	return nil, n, t.problem("graph_neighbourhood", err)
}

func (t tools) ask(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, apiv1.Answer, error) {
	q := strings.TrimSpace(in.Question)
	switch {
	case q == "":
		return nil, apiv1.Answer{}, errors.New("write a question first")
	case utf8.RuneCountInString(q) > t.MaxQuestionChars:
		return nil, apiv1.Answer{}, fmt.Errorf("questions can be at most %d characters long", t.MaxQuestionChars)
	}
	release, err := t.Admit(ctx)
	if err != nil {
		return nil, apiv1.Answer{}, err
	}
	defer release()
	if t.Runs != nil {
		return t.run(ctx, req, strings.TrimSpace(in.ConversationID), q)
	}
	conv, err := t.Chat.Start(ctx, t.Scope(ctx), strings.TrimSpace(in.ConversationID), q)
	if err != nil {
		return nil, apiv1.Answer{}, t.problem("ask", err)
	}
	turn, res, err := t.Chat.Ask(ctx, conv.ID, q, progress(ctx, req))
	if err != nil {
		t.Logger.Warn("mcp: ask failed", "conversation", turn.ConversationID, "turn", turn.ID, "err", err)
		if ctx.Err() != nil {
			return nil, apiv1.Answer{}, errStopped
		}
		return nil, apiv1.Answer{}, errUnfinished
	}
	return nil, apiv1.NewAnswer(turn, res), nil
}

var (
	errStopped    = errors.New("the question was stopped before the answer was finished")
	errUnfinished = errors.New("the answer could not be finished; please try again, and if it keeps failing, check Hopwise's Status page")
)

// run answers q through Runs: the progress notifications are the run's stored events.
func (t tools) run(ctx context.Context, req *mcp.CallToolRequest, conversationID, q string) (*mcp.CallToolResult, apiv1.Answer, error) {
	report := progress(ctx, req)
	turn, res, err := t.Runs.Run(ctx, t.Scope(ctx), conversationID, q, func(e agent.SeqEvent) { report(e.Event) })
	switch {
	case ctx.Err() != nil:
		return nil, apiv1.Answer{}, errStopped
	case errors.Is(err, ErrBusy):
		return nil, apiv1.Answer{}, errors.New("too many questions are being answered right now; please ask again in a minute")
	case err != nil:
		return nil, apiv1.Answer{}, t.problem("ask", err)
	}
	switch turn.Status {
	case agent.TurnDone:
		return nil, apiv1.NewAnswer(turn, res), nil
	case agent.TurnCancelled:
		return nil, apiv1.Answer{}, errors.New("the answer was stopped (from Hopwise's page) before it was finished")
	case agent.TurnInterrupted:
		return nil, apiv1.Answer{}, errors.New("the server writing the answer stopped before it was finished; please ask again")
	}
	t.Logger.Warn("mcp: ask failed", "conversation", turn.ConversationID, "turn", turn.ID, "status", turn.Status)
	return nil, apiv1.Answer{}, errUnfinished
}

// progress reports the run's steps as progress notifications when the client asked for them.
func progress(ctx context.Context, req *mcp.CallToolRequest) func(agent.Event) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func(agent.Event) {}
	}
	steps := 0
	return func(ev agent.Event) {
		if ev.Type != agent.EventNodeStarted || ev.Summary == "" {
			return
		}
		steps++
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Message: ev.Summary, Progress: float64(steps)})
	}
}

// problem is a tool's error in words a client can show: input to change and things not found are said as
// they are; anything else is logged, and the client is told only that it failed.
func (t tools) problem(tool string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, apiv1.ErrBadInput):
		return errors.New(strings.TrimPrefix(err.Error(), apiv1.ErrBadInput.Error()+": "))
	case errors.Is(err, graphrag.ErrNotFound):
		return errors.New("not found: it may have been deleted, or the ID or name is not one Hopwise knows")
	case errors.Is(err, graphrag.ErrUnavailable):
		return errors.New("the knowledge store cannot be reached right now; please try again in a moment")
	}
	t.Logger.Error("mcp: tool failed", "tool", tool, "err", err)
	return errors.New("the tool failed on the server (the details are in its log)")
}
