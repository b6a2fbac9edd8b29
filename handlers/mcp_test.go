package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/mcpserver/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's own client uses every tool over streamable HTTP at /mcp, through the real router.
func TestMCPOverHTTP(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	progress := &mcptest.Progress{}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: progress.Handler})
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b.srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	mcptest.Exercise(t, cs, webtest.DelhiQuestion, "600 EUR", progress)

	var list struct{ Conversations []struct{ Title string } }
	if getJSON(t, b, "/api/v1/conversations", &list); len(list.Conversations) != 1 || !strings.HasPrefix(list.Conversations[0].Title, "How much") {
		t.Errorf("the MCP question is not a stored conversation: %+v", list)
	}
}

// /mcp has the same access rules as the API: a page of another site cannot post to it, nor can a page
// on a rebound name; MCP questions count against the same per-client budget as the API's.
func TestMCPAccess(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true, Limits: handlers.Limits{AskPerMinute: 1}})
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(header http.Header) int {
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header[k] = v
		}
		if h := header.Get("Host"); h != "" {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(nil); code != http.StatusOK {
		t.Fatalf("script: %d", code)
	}
	if code := post(http.Header{"Origin": {"https://evil.example"}}); code != http.StatusForbidden {
		t.Errorf("other origin: %d", code)
	}
	if code := post(http.Header{"Sec-Fetch-Site": {"cross-site"}}); code != http.StatusForbidden {
		t.Errorf("cross-site: %d", code)
	}
	if code := post(http.Header{"Host": {"rebound.example"}}); code != http.StatusMisdirectedRequest {
		t.Errorf("rebound name: %d", code)
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b.srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	var ans struct{ Answer string }
	mcptest.Call(t, cs, "ask", map[string]any{"question": "Who founded Nexa AI?"}, &ans)
	if msg := mcptest.CallError(t, cs, "ask", map[string]any{"question": "Who founded Nexa AI?"}); !strings.Contains(msg, "too many questions") {
		t.Errorf("second question within the minute: %q", msg)
	}
	resp, err := http.Post(b.srv.URL+"/api/v1/ask", "application/json", strings.NewReader(`{"question":"Who founded Nexa AI?"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("the API after the MCP question: %d (one budget per client)", resp.StatusCode)
	}
	var found struct{ Passages []struct{ ID string } }
	mcptest.Call(t, cs, "search", map[string]any{"query": "Nexa AI founders"}, &found) // searching is not asking
}
