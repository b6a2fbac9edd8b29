package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// reconnectable opens a page stream with the Last-Event-ID an EventSource sends when it reconnects (none
// when empty); cancel drops the connection.
func (b *browser) reconnectable(path, lastEventID string) (*http.Response, context.CancelFunc) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL+path, nil)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp := do(b.t, b.client, req)
	b.t.Cleanup(func() {
		cancel()
		resp.Body.Close()
	})
	return resp, cancel
}

func stepEvents(events []sseEvent) []string {
	var out []string
	for _, e := range events {
		if e.name == "step" {
			out = append(out, e.data)
		}
	}
	return out
}

// A stream that drops mid-answer and reconnects with Last-Event-ID, as EventSource does, gets what came
// after the last event it had, none of it twice, and the answer goes on meanwhile; a reloaded page (a
// new EventSource, no ID) gets every step so far and then the rest. Either way the page ends with the
// turn as stored, and every step the stored turn lists was streamed exactly once.
func TestStreamResumesAfterReconnect(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true, TokenDelay: 40 * time.Millisecond})
	stream, convID := b.ask(webtest.DelhiQuestion, "")

	resp, drop := b.reconnectable(stream, "")
	first := readSSE(t, resp.Body, "answer")
	drop()
	last := first[len(first)-1]
	if last.id == "" {
		t.Fatalf("the answer event has no id: %+v", last)
	}
	lastID, _ := strconv.Atoi(last.id)

	reloaded, _ := b.reconnectable(stream, "") // meanwhile a second tab, or the page reloaded
	resumed, _ := b.reconnectable(stream, last.id)
	rest := readSSE(t, resumed.Body, "done")
	again := readSSE(t, reloaded.Body, "done")
	if len(rest) == 0 || rest[len(rest)-1].name != "done" || len(again) == 0 || again[len(again)-1].name != "done" {
		t.Fatalf("streams ended without done: resumed %+v, reloaded %+v", rest, again)
	}
	for _, e := range rest {
		if n, err := strconv.Atoi(e.id); e.name == "step" && (err != nil || n <= lastID) {
			t.Errorf("after Last-Event-ID %d the stream sent step %s again: %s", lastID, e.id, e.data)
		}
	}
	if again[0].name != "steps" || again[0].data != "" {
		t.Errorf("a stream without Last-Event-ID starts with %q %q, want the steps cleared", again[0].name, again[0].data)
	}

	final := fragment(t, rest[len(rest)-1].data).Find("article.turn")
	if !strings.Contains(final.Find(".answer").Text(), "600 EUR") {
		t.Fatalf("final turn: %s", final.Text())
	}
	stored := final.Find("ol.steps > li").Length()
	if got := len(stepEvents(first)) + len(stepEvents(rest)); got != stored || stored < 4 {
		t.Errorf("steps streamed before and after the reconnect: %d + %d, the stored turn lists %d", len(stepEvents(first)), len(stepEvents(rest)), stored)
	}
	if got := len(stepEvents(again)); got != stored {
		t.Errorf("the reloaded page's stream sent %d steps, the stored turn lists %d", got, stored)
	}
	if !strings.Contains(fragment(t, again[len(again)-1].data).Find(".answer").Text(), "600 EUR") {
		t.Error("the reloaded page's stream did not end with the answer")
	}
	// The run's events are kept a few seconds after it, for the streams still reading them; the stored
	// turn holds what they said.
	id := strings.TrimPrefix(strings.Split(stream, "?")[0], "/chat/stream/")
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		evs, err := b.app.Store.RunEvents(context.Background(), id, 0, 0)
		if err == nil && len(evs) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events left 15 s after the run: %d, %v", len(evs), err)
		}
	}
	_, page := b.get("/?c=" + url.QueryEscape(convID))
	if page.Find("article.turn[sse-connect]").Length() != 0 || !strings.Contains(page.Find("article.turn .answer").Text(), "600 EUR") {
		t.Errorf("the conversation after the answer: %s", page.Find("#turns").Text())
	}
}

// A page reloaded while its answer is being written shows the turn still running, and its new stream goes
// on with the same run: no second run, no second turn.
func TestReloadedPageContinuesTheAnswer(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true, TokenDelay: 40 * time.Millisecond})
	stream, convID := b.ask(webtest.DelhiQuestion, "")
	resp, drop := b.reconnectable(stream, "")
	readSSE(t, resp.Body, "answer")
	drop()

	_, page := b.get("/?c=" + url.QueryEscape(convID))
	running := page.Find("article.turn[sse-connect]")
	if running.Length() != 1 {
		t.Fatalf("the reloaded page shows no running turn: %s", page.Find("#turns").Text())
	}
	events := b.stream(running.AttrOr("sse-connect", ""))
	if !strings.Contains(fragment(t, events[len(events)-1].data).Find(".answer").Text(), "600 EUR") {
		t.Fatalf("the reloaded page's stream: %+v", events)
	}
	_, turns, err := b.app.Store.Conversation(context.Background(), graphrag.AllConversations, convID)
	if err != nil || len(turns) != 1 || turns[0].Status != agent.TurnDone {
		t.Fatalf("turns: %+v %v", turns, err)
	}
}

// A turn whose server died while writing it (stored as running, its events stored, its lease run out)
// shows as interrupted, as far as its events got, with a button that asks the question again.
func TestTurnOfADeadServerIsInterruptedWithRetry(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	ctx := context.Background()
	conv := graphrag.Conversation{ID: "c-dead", Title: "Delhi"}
	if err := b.app.Store.PutConversation(ctx, conv); err != nil {
		t.Fatal(err)
	}
	turn := graphrag.Turn{ID: "t-dead", ConversationID: conv.ID, Ordinal: 1, Question: webtest.DelhiQuestion, Status: agent.TurnRunning}
	if err := b.app.Store.PutTurn(ctx, turn); err != nil {
		t.Fatal(err)
	}
	var stored []graphrag.RunEvent
	for i, e := range []agent.Event{
		{Type: agent.EventNodeStarted, Node: agent.NodeRetrieve, Summary: "Searching your documents"},
		{Type: agent.EventNodeFinished, Node: agent.NodeRetrieve, Summary: "Found 3 passages about Delhi"},
		{Type: agent.EventToken, Delta: "The compensation is "},
		{Type: agent.EventToken, Delta: "600"},
	} {
		data, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, graphrag.RunEvent{Seq: i + 1, Data: data})
	}
	if err := b.app.Store.AppendRunEvents(ctx, turn.ID, stored); err != nil {
		t.Fatal(err)
	}

	_, page := b.get("/?c=" + conv.ID)
	article := page.Find("article.turn")
	if article.Length() != 1 || article.AttrOr("sse-connect", "") != "" {
		t.Fatalf("the dead server's turn: %s", page.Find("#turns").Text())
	}
	if !strings.Contains(article.Find(".notice").Text(), "stopped before it was finished") ||
		!strings.Contains(article.Find(".answer").Text(), "The compensation is 600") ||
		!strings.Contains(article.Find("ol.steps").Text(), "Found 3 passages about Delhi") {
		t.Errorf("interrupted turn: %s", article.Text())
	}
	_, turns, err := b.app.Store.Conversation(ctx, graphrag.AllConversations, conv.ID)
	if err != nil || len(turns) != 1 || turns[0].Status != agent.TurnInterrupted || turns[0].Answer != "The compensation is 600" {
		t.Fatalf("stored: %+v %v", turns, err)
	}
	if evs, _ := b.app.Store.RunEvents(ctx, turn.ID, 0, 0); len(evs) != 0 {
		t.Errorf("%d events left of the interrupted run", len(evs))
	}

	retry := article.Find("form.retry").AttrOr("hx-post", "")
	if retry == "" {
		t.Fatal("no retry button")
	}
	resp, doc := b.post(retry, url.Values{}, true)
	stream := doc.Find("article.turn[sse-connect]").AttrOr("sse-connect", "")
	if resp.StatusCode != http.StatusOK || stream == "" {
		t.Fatalf("retry: %d %s", resp.StatusCode, doc.Text())
	}
	events := b.stream(stream)
	if !strings.Contains(fragment(t, events[len(events)-1].data).Find(".answer").Text(), "600 EUR") {
		t.Fatalf("the question asked again: %+v", events)
	}
	_, turns, _ = b.app.Store.Conversation(ctx, graphrag.AllConversations, conv.ID)
	if len(turns) != 2 || turns[0].Status != agent.TurnInterrupted || turns[1].Status != agent.TurnDone {
		t.Errorf("turns after asking again: %+v", turns)
	}
	// A finished answer is not asked again by the retry route.
	if resp, _ := b.post("/chat/retry/"+turns[1].ID+"?c="+conv.ID, url.Values{}, true); resp.StatusCode != http.StatusConflict {
		t.Errorf("retry of a done turn: %d, want 409", resp.StatusCode)
	}
}
