// Package mcptest drives Hopwise's MCP tools from the official SDK's client, the same way over every
// transport, against the demo corpus answered by the scripted model (handlers/webtest).
package mcptest

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/apiv1"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Progress counts the progress notifications a client received; give Handler to mcp.ClientOptions.
type Progress struct{ n atomic.Int32 }

// Handler is a ProgressNotificationHandler.
func (p *Progress) Handler(context.Context, *mcp.ProgressNotificationClientRequest) { p.n.Add(1) }

// Count is how many notifications were received.
func (p *Progress) Count() int { return int(p.n.Load()) }

// Exercise lists the tools and calls each one on the demo corpus (6 documents); question is asked with ask,
// and its answer must hold want and cite two sources. When progress is not nil, ask must have reported steps.
func Exercise(t *testing.T, cs *mcp.ClientSession, question, want string, progress *Progress) {
	t.Helper()
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("list tools: %v", err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("tool %s: description %q, input schema %v, output schema %v", tool.Name, tool.Description, tool.InputSchema, tool.OutputSchema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"ask", "get_passage", "graph_neighbourhood", "list_documents", "search"}) {
		t.Fatalf("tools: %v", names)
	}

	var page apiv1.DocumentPage
	Call(t, cs, "list_documents", map[string]any{"limit": 4}, &page)
	if page.Total != 6 || len(page.Documents) != 4 || page.NextOffset == nil || *page.NextOffset != 4 || page.Documents[0].Status != "done" {
		t.Errorf("list_documents: %+v", page)
	}

	var found apiv1.SearchResult
	Call(t, cs, "search", map[string]any{"query": "distance between Delhi and Munich", "k": 5}, &found)
	if len(found.Passages) != 5 || len(found.Facts) == 0 || found.Passages[0].Rank != 1 {
		t.Fatalf("search: %+v", found)
	}
	var p apiv1.Passage
	Call(t, cs, "get_passage", map[string]any{"id": found.Passages[0].ID}, &p)
	if p.Text != found.Passages[0].Text || p.DocName == "" {
		t.Errorf("get_passage: %+v", p)
	}
	if msg := CallError(t, cs, "get_passage", map[string]any{"id": "no-such-passage"}); !strings.Contains(msg, "not found") {
		t.Errorf("get_passage of an unknown ID: %q", msg)
	}

	var n apiv1.Neighbourhood
	Call(t, cs, "graph_neighbourhood", map[string]any{"entity": "Munich"}, &n)
	if len(n.Relations) == 0 || len(n.Entities) < 2 {
		t.Errorf("graph_neighbourhood: %+v", n)
	}

	var ans apiv1.Answer
	askParams := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": question}}
	askParams.SetProgressToken("ask-1")
	call(t, cs, askParams, &ans)
	if !strings.Contains(ans.Answer, want) || len(ans.Citations) != 2 || ans.NotFound || ans.Status != "done" || ans.ConversationID == "" {
		t.Errorf("ask: %+v", ans)
	}
	for _, c := range ans.Citations {
		if !strings.Contains(ans.Answer, "["+strconv.Itoa(c.N)+"]") || c.ChunkID == "" {
			t.Errorf("citation %+v is not marked in the answer or names no passage", c)
		}
	}
	// The SDK's client hands notifications to their handler apart from the call's result, which may
	// come back first: the notifications sent before it are given a moment to be handled.
	for wait := time.Now().Add(5 * time.Second); progress != nil && progress.n.Load() == 0 && time.Now().Before(wait); {
		time.Sleep(20 * time.Millisecond)
	}
	if progress != nil && progress.n.Load() == 0 {
		t.Error("ask sent no progress notification")
	}
	if msg := CallError(t, cs, "ask", map[string]any{"question": "   "}); msg != "write a question first" {
		t.Errorf("empty question: %q", msg)
	}
}

// Call calls a tool that must succeed and decodes its structured result into out.
func Call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	call(t, cs, &mcp.CallToolParams{Name: tool, Arguments: args}, out)
}

func call(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams, out any) {
	t.Helper()
	tool := params.Name
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", tool, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	if text(res) == "" {
		t.Errorf("%s: no text content beside the structured one", tool)
	}
}

// CallError calls a tool that must fail as a tool (not the protocol) and returns its message.
func CallError(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: no error", tool, args)
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Ask calls ask with question and a progress token and returns its answer, or the tool's error message
// (msg) when it failed as a tool, or the protocol's error.
func Ask(ctx context.Context, cs *mcp.ClientSession, question, token string) (ans apiv1.Answer, msg string, err error) {
	params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"question": question}}
	params.SetProgressToken(token)
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		return ans, "", err
	}
	if res.IsError {
		return ans, text(res), nil
	}
	b, _ := json.Marshal(res.StructuredContent)
	return ans, "", json.Unmarshal(b, &ans)
}

// CheckStreamed checks what a stream of an asked turn's stored events (the JSON API's, as JSON) showed
// against the answer ask returned: its tokens make the answer's beginning, and the call's progress
// notifications were the run's steps, no more.
func CheckStreamed(t *testing.T, events []string, ans apiv1.Answer, progress *Progress) {
	t.Helper()
	var streamed []agent.Event
	steps := 0
	for _, data := range events {
		var e agent.Event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %s: %v", data, err)
		}
		streamed = append(streamed, e)
		if e.Type == agent.EventNodeStarted && e.Summary != "" {
			steps++
		}
	}
	text, _ := agent.Replay(streamed)
	if text = strings.TrimSpace(text); len(text) < 20 || !strings.HasPrefix(ans.Answer, text[:20]) {
		t.Errorf("the stream's tokens made %q; the call answered %q", text, ans.Answer)
	}
	if n := progress.Count(); n == 0 || n > steps {
		t.Errorf("%d progress notifications for %d steps the run stored", n, steps)
	}
}
