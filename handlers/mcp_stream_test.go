package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/apiv1"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/mcpserver/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A question asked over MCP is run as the page's and the JSON API's are (issue 19): while the ask call
// waits, the conversation list of another server sharing the store shows the question as running, and that
// server streams its answer from the stored events; the answer it streams is the one the call returns, and
// the call's progress notifications are the run's steps. When the MCP client leaves mid-answer, the run
// goes on while that stream follows it, and is stored done.
func TestMCPAskStreamsFromTheStore(t *testing.T) {
	app := webtest.New(t, webtest.Options{Demo: true, TokenDelay: 40 * time.Millisecond})
	a, b := httptest.NewServer(app.Handler), httptest.NewServer(app.Peer())
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	progress := &mcptest.Progress{}
	connect := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: progress.Handler})
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp"}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}

	type answer struct {
		ans apiv1.Answer
		msg string
		err error
	}
	ask := func(ctx context.Context, cs *mcp.ClientSession, token string) <-chan answer {
		out := make(chan answer, 1)
		go func() {
			ans, msg, err := mcptest.Ask(ctx, cs, webtest.DelhiQuestion, token)
			out <- answer{ans, msg, err}
		}()
		return out
	}

	// running waits until b's conversation list shows a question running, and returns it.
	running := func(notID string) (convID, turnID string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var page apiv1.ConversationPage
			if code := getJSONFrom(t, b.URL+"/api/v1/conversations", &page); code != http.StatusOK {
				t.Fatalf("b's conversations: %d", code)
			}
			for _, c := range page.Conversations {
				var conv apiv1.Conversation
				getJSONFrom(t, b.URL+"/api/v1/conversations/"+c.ID, &conv)
				for _, tr := range conv.Turns {
					if tr.ID != notID && tr.Status == agent.TurnRunning && tr.Question == webtest.DelhiQuestion {
						return conv.ID, tr.ID
					}
				}
			}
		}
		t.Fatal("b's conversation list never showed the MCP question running within 30 s")
		return "", ""
	}

	// The whole call, while b streams the turn from the store.
	got := ask(context.Background(), connect(), "ask-1")
	convID, turnID := running("")
	resp, _ := apiStream(t, http.MethodGet, b.URL+"/api/v1/conversations/"+convID+"/turns/"+turnID+"/events", "", "")
	evs := readSSE(t, resp.Body, "done")
	if len(evs) < 2 || evs[len(evs)-1].name != "done" {
		t.Fatalf("b's stream of the MCP question: %+v", evs)
	}
	r := <-got
	if r.err != nil || r.msg != "" || r.ans.Status != agent.TurnDone || r.ans.TurnID != turnID || r.ans.ConversationID != convID ||
		!strings.Contains(r.ans.Answer, "600 EUR") || len(r.ans.Citations) != 2 {
		t.Fatalf("the MCP answer: %+v %q %v", r.ans, r.msg, r.err)
	}
	var data []string
	for _, ev := range evs[:len(evs)-1] {
		data = append(data, ev.data)
	}
	mcptest.CheckStreamed(t, data, r.ans, progress)

	// The client leaves mid-answer: b's stream follows the run to its end.
	ctx, leave := context.WithCancel(context.Background())
	got = ask(ctx, connect(), "ask-2")
	convID, second := running(turnID)
	resp, _ = apiStream(t, http.MethodGet, b.URL+"/api/v1/conversations/"+convID+"/turns/"+second+"/events", "", "")
	if first := readSSE(t, resp.Body, "token"); len(first) == 0 || first[len(first)-1].name != "token" {
		t.Fatalf("b's stream of the second question before any token: %+v", first)
	}
	leave()
	if r := <-got; r.err == nil {
		t.Fatalf("the call whose client left: %+v", r)
	}
	rest := readSSE(t, resp.Body, "done")
	var done struct {
		Status string       `json:"status"`
		Result agent.Result `json:"result"`
	}
	if len(rest) == 0 || json.Unmarshal([]byte(rest[len(rest)-1].data), &done) != nil || done.Status != agent.TurnDone ||
		!strings.Contains(done.Result.Answer, "600 EUR") {
		t.Fatalf("the question whose MCP client left, as b streamed it to its end: %+v", rest)
	}
}

// getJSONFrom decodes the JSON at u into v and returns the status.
func getJSONFrom(t *testing.T, u string, v any) int {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %d, not JSON: %v", u, resp.StatusCode, err)
	}
	return resp.StatusCode
}
