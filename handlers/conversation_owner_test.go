package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/mcpserver/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// apiCall calls a program route with a Bearer token and returns the status and the body.
func apiCall(t *testing.T, base, method, path, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// bearerTransport adds a token to every request, as an MCP client configured with one does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// A conversation belongs to the account that started it. Another account, even an editor or an admin, can
// neither list it (chat page, JSON API) nor open it (/?c=, the JSON API), nor receive the stream of its
// turn, nor continue it (the page's form, /api/v1/ask, /v1/chat/completions by ID or by repeating its
// messages, MCP), rename or delete it (form and API): each answers 404 as for an ID that does not exist,
// and the conversation stays as it was. Conversations from before accounts (no owner) are an admin's.
func TestConversationsBelongToTheirAccount(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{Demo: true})
	admin, _, err := app.Auth.Login(t.Context(), "ana", testPassword, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Auth.CreateAccount(t.Context(), admin, "eve", testPassword, auth.Editor); err != nil {
		t.Fatal(err)
	}
	ed, eve := signIn(t, app, srv, "ed"), signIn(t, app, srv, "eve")

	// ed asks; eve opens the stream of ed's question first and gets nothing of it.
	stream, convID := ed.ask(webtest.DelhiQuestion, "")
	if convID == "" {
		t.Fatal("no conversation started")
	}
	for _, ev := range eve.stream(stream) {
		// (the turn's random ID may hold "600": the answer's "600 EUR" and the question's Delhi may not)
		if ev.name != "done" && ev.name != "ping" || strings.Contains(ev.data, "600 EUR") || strings.Contains(ev.data, "Delhi") {
			t.Errorf("eve's stream of ed's question sent %s: %.200s", ev.name, ev.data)
		}
	}
	answered := false
	for _, ev := range ed.stream(stream) {
		answered = answered || ev.name == "done" && strings.Contains(ev.data, "600 EUR")
	}
	if !answered {
		t.Fatal("ed's own stream did not answer after eve's attempt")
	}
	_, again := eve.get(stream) // a finished question is remembered for its reconnecting stream: not eve's
	if strings.Contains(again.Text(), "600") {
		t.Error("eve's stream of ed's finished question sent the stored answer")
	}

	// The chat page lists ed's conversation to ed only, and opens it for ed only.
	if _, page := ed.get("/"); page.Find(`a[href="/?c=`+convID+`"]`).Length() == 0 {
		t.Fatal("ed's chat page does not list ed's conversation")
	}
	if _, page := eve.get("/"); page.Find(`a[href="/?c=`+convID+`"]`).Length() != 0 || strings.Contains(page.Text(), "How much") {
		t.Error("eve's chat page lists ed's conversation")
	}
	if resp, page := eve.get("/?c=" + convID); resp.StatusCode != http.StatusNotFound || strings.Contains(page.Text(), "600") {
		t.Errorf("eve opens ed's conversation: %d, want 404 without its turns", resp.StatusCode)
	}
	missing, _ := eve.get("/?c=cmissing")
	if missing.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown conversation: %d, want 404", missing.StatusCode)
	}

	// The page's forms: continue, rename, delete (confirmed) are 404.
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/chat/ask", url.Values{"question": {"And from Munich?"}, "conversation_id": {convID}}},
		{"/chat/conversations/" + convID + "/rename", url.Values{"title": {"Taken over"}}},
		{"/chat/conversations/" + convID + "/delete", url.Values{"confirmed": {"yes"}}},
		{"/chat/conversations/" + convID + "/delete", url.Values{}},
	} {
		if resp, _ := eve.post(tc.path, tc.form, false); resp.StatusCode != http.StatusNotFound {
			t.Errorf("eve POST %s %v: %d, want 404", tc.path, tc.form, resp.StatusCode)
		}
	}

	// The JSON API, the OpenAI-compatible endpoint and MCP with eve's token.
	token := eve.createToken("eve's script", "editor")
	if code, body := apiCall(t, srv.URL, "GET", "/api/v1/conversations", token, ""); code != http.StatusOK || strings.Contains(body, convID) {
		t.Errorf("eve's /api/v1/conversations: %d, lists ed's: %v", code, strings.Contains(body, convID))
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/v1/conversations/" + convID, ""},
		{"DELETE", "/api/v1/conversations/" + convID, ""},
		{"POST", "/api/v1/ask", `{"question":"And from Munich?","conversation_id":"` + convID + `"}`},
		{"POST", "/api/ask", `{"question":"And from Munich?","conversation_id":"` + convID + `"}`},
		{"POST", "/v1/chat/completions", `{"model":"hopwise","conversation_id":"` + convID + `","messages":[{"role":"user","content":"And from Munich?"}]}`},
	} {
		if code, body := apiCall(t, srv.URL, tc.method, tc.path, token, tc.body); code != http.StatusNotFound {
			t.Errorf("eve %s %s: %d %.200s, want 404", tc.method, tc.path, code, body)
		}
	}
	_, turns, err := app.Store.Conversation(t.Context(), graphrag.AllConversations, convID)
	if err != nil || len(turns) != 1 {
		t.Fatalf("ed's conversation: %d turns, %v", len(turns), err)
	}
	// A chat front end repeating ed's messages starts eve's own conversation instead of continuing ed's.
	earlier := `{"role":"user","content":"` + webtest.DelhiQuestion + `"},{"role":"assistant","content":` + jsonString(turns[0].Answer) + `}`
	if code, body := apiCall(t, srv.URL, "POST", "/v1/chat/completions", token,
		`{"model":"hopwise","messages":[`+earlier+`,{"role":"user","content":"And from Munich?"}]}`); code != http.StatusOK {
		t.Fatalf("eve's chat completion with ed's messages: %d %.300s", code, body)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if msg := mcptest.CallError(t, cs, "ask", map[string]any{"question": "And from Munich?", "conversation_id": convID}); !strings.Contains(msg, "not found") {
		t.Errorf("eve's MCP ask in ed's conversation: %q, want not found", msg)
	}

	conv, turns, err := app.Store.Conversation(t.Context(), graphrag.AllConversations, convID)
	if err != nil || len(turns) != 1 || strings.Contains(conv.Title, "Taken") {
		t.Errorf("ed's conversation after eve's attempts: %+v with %d turns, %v; want it unchanged with 1 turn", conv, len(turns), err)
	}
	all, _ := app.Store.Conversations(t.Context(), graphrag.AllConversations)
	if len(all) != 2 || all[0].Owner == conv.Owner || all[0].Owner == "" || all[0].Turns != 2 {
		t.Errorf("conversations after eve's chat completion: %+v; want ed's and a new one of eve's with 2 turns", all)
	}

	// Admins see the conversations without an owner (from before accounts), not other accounts'.
	if err := app.Store.PutConversation(t.Context(), graphrag.Conversation{ID: "c-before", Title: "Asked on the laptop"}); err != nil {
		t.Fatal(err)
	}
	ana := signIn(t, app, srv, "ana")
	if resp, _ := ana.get("/?c=" + convID); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the admin opens ed's conversation: %d, want 404", resp.StatusCode)
	}
	if resp, page := ana.get("/?c=c-before"); resp.StatusCode != http.StatusOK || page.Find(`a[href="/?c=c-before"]`).Length() == 0 {
		t.Errorf("the admin opens a conversation without an owner: %d, want 200 and it listed", resp.StatusCode)
	}
	if resp, _ := ed.get("/?c=c-before"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("ed opens a conversation without an owner: %d, want 404", resp.StatusCode)
	}

	// ed still does everything with his own.
	if resp, _ := ed.post("/chat/conversations/"+convID+"/rename", url.Values{"title": {"Delhi"}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("ed renames his conversation: %d", resp.StatusCode)
	}
	if resp, _ := ed.post("/chat/conversations/"+convID+"/delete", url.Values{"confirmed": {"yes"}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("ed deletes his conversation: %d", resp.StatusCode)
	}
	if _, _, err := app.Store.Conversation(t.Context(), graphrag.AllConversations, convID); err == nil {
		t.Error("ed's conversation is still stored after he deleted it")
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Only the account that asked a question can stop its answer: another's stop is 404 and the answer goes
// on until its asker stops it.
func TestOnlyTheAskerStopsAnAnswer(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{Demo: true, TokenDelay: 50 * time.Millisecond})
	ed, rea := signIn(t, app, srv, "ed"), signIn(t, app, srv, "rea")
	stream, _ := ed.ask(webtest.DelhiQuestion, "")
	resp, err := ed.client.Get(srv.URL + stream)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	readSSE(t, body, "answer")
	stop := "/chat/stop/" + strings.TrimPrefix(stream, "/chat/stream/")
	if resp, _ := rea.post(stop, url.Values{}, true); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another account stops the answer: %d, want 404", resp.StatusCode)
	}
	readSSE(t, body, "answer") // still answering
	if resp, doc := ed.post(stop, url.Values{}, true); resp.StatusCode != http.StatusOK || !strings.Contains(doc.Text(), "Stopping") {
		t.Fatalf("the asker stops the answer: %d %s", resp.StatusCode, doc.Text())
	}
	events := readSSE(t, body, "done")
	if len(events) == 0 || !strings.Contains(fragment(t, events[len(events)-1].data).Find(".notice").Text(), "You stopped this answer") {
		t.Fatalf("after the asker's stop: %+v", events)
	}
}
