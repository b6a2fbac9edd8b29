package handlers_test

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// ask posts a question as the page does and returns the stream URL of its running turn.
func (b *browser) ask(question, conversationID string) (streamURL, convID string) {
	b.t.Helper()
	resp, doc := b.post("/chat/ask", url.Values{"question": {question}, "conversation_id": {conversationID}}, true)
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("ask: %d %s", resp.StatusCode, doc.Text())
	}
	stream := doc.Find("article.turn[sse-connect]").AttrOr("sse-connect", "")
	if stream == "" {
		b.t.Fatalf("no streaming turn in %s", doc.Text())
	}
	return stream, doc.Find("#conversation-id[hx-swap-oob]").AttrOr("value", "")
}

func (b *browser) stream(path string) []sseEvent {
	b.t.Helper()
	resp, err := b.client.Get(b.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	return readSSE(b.t, resp.Body, "done")
}

func TestAskStreamsTheAnswerItsTraceAndStoresTheTurn(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	stream, convID := b.ask(webtest.DelhiQuestion, "")
	if convID == "" {
		t.Fatal("no conversation started")
	}
	events := b.stream(stream)
	kinds := map[string]int{}
	var answers []string
	for _, ev := range events {
		kinds[ev.name]++
		if ev.name == "answer" {
			answers = append(answers, ev.data)
		}
	}
	if kinds["step"] < 4 || kinds["status"] == 0 || kinds["usage"] == 0 || len(answers) == 0 {
		t.Fatalf("events: %v", kinds)
	}
	last := events[len(events)-1]
	if last.name != "done" {
		t.Fatalf("last event %q", last.name)
	}
	turn := fragment(t, last.data).Find("article.turn")
	if turn.AttrOr("sse-connect", "") != "" {
		t.Error("the finished turn still streams")
	}
	if !strings.Contains(turn.Find(".answer").Text(), "600 EUR") {
		t.Errorf("answer: %q", turn.Find(".answer").Text())
	}
	// The audit's verdict is shown on the finished turn (it was lost with the stored trace once).
	if badges := turn.Find(".badge").Text(); !strings.Contains(badges, "checked against the sources") {
		t.Errorf("badges %q: want the audit's verdict", badges)
	}
	cites := turn.Find("ol.citations > li")
	if cites.Length() != 2 {
		t.Fatalf("citations: %d", cites.Length())
	}
	turn.Find(".answer a[href^='#cite-']").Each(func(_ int, a *goquery.Selection) {
		if turn.Find(a.AttrOr("href", "")).Length() != 1 {
			t.Errorf("citation link %s leads nowhere", a.AttrOr("href", ""))
		}
	})
	if !strings.Contains(cites.Text(), "munich-city-distances.md") && !strings.Contains(cites.Text(), "Delhi") {
		t.Errorf("the distance is not cited: %s", cites.Text())
	}
	if href := cites.Find("a[href^='/documents/']").AttrOr("href", ""); !strings.Contains(href, "#chunk-") {
		t.Errorf("citation does not open its passage: %q", href)
	}
	trace := turn.Find("details.trace").Text()
	for _, want := range []string{"My working idea", "distance between Delhi and Munich", "kept", "Cost:"} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q:\n%s", want, trace)
		}
	}

	// Reopened later, the conversation shows the same turn with its trace.
	_, page := b.get("/?c=" + url.QueryEscape(convID))
	if page.Find("article.turn").Length() != 1 || !strings.Contains(page.Find("article.turn .answer").Text(), "600 EUR") {
		t.Fatalf("reopened conversation: %s", page.Find("#turns").Text())
	}
	if page.Find("article.turn details.trace li").Length() < 4 {
		t.Error("the reopened turn has no trace")
	}
	if page.Find("#conversations li[aria-current=true]").Length() != 1 {
		t.Error("the open conversation is not marked in the list")
	}

	// A follow-up continues the conversation.
	stream, again := b.ask("And from Paris?", convID)
	if again != convID {
		t.Errorf("follow-up started conversation %q, want %q", again, convID)
	}
	b.stream(stream)
	_, turns, err := b.app.Store.Conversation(context.Background(), graphrag.AllConversations, convID)
	if err != nil || len(turns) != 2 {
		t.Fatalf("turns: %d %v", len(turns), err)
	}

	// A stream opened again for a finished run gets the stored turn, not a second run.
	calls := b.app.Model.ChatCalls()
	if ev := b.stream(stream); len(ev) != 1 || ev[0].name != "done" || b.app.Model.ChatCalls() != calls {
		t.Errorf("reopened stream: %d events, %d new model calls", len(ev), b.app.Model.ChatCalls()-calls)
	}
}

// Row 10 of RELIABILITY.md: a client that goes away mid-answer cancels the run (the page's once no stream
// came back within the reconnect grace); nothing keeps running. Both the page's stream and the JSON API's
// are checked.
func TestClosedStreamCancelsTheRun(t *testing.T) {
	tests := []struct {
		name  string
		first string // the event after which the client leaves
		open  func(t *testing.T, b *browser, ctx context.Context) (*http.Response, func() string)
	}{
		{name: "page", first: "answer", open: func(t *testing.T, b *browser, ctx context.Context) (*http.Response, func() string) {
			stream, convID := b.ask(webtest.DelhiQuestion, "")
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.srv.URL+stream, nil)
			return do(t, b.client, req), func() string { return convID }
		}},
		{name: "json api", first: "token", open: func(t *testing.T, b *browser, ctx context.Context) (*http.Response, func() string) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, b.srv.URL+"/api/ask",
				strings.NewReader(`{"question":"`+webtest.DelhiQuestion+`"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "text/event-stream")
			return do(t, http.DefaultClient, req), func() string { // a script's client: no cookie, no CSRF token
				convs, err := b.app.Store.Conversations(context.Background(), graphrag.AllConversations)
				if err != nil || len(convs) != 1 {
					t.Fatalf("conversations: %+v %v", convs, err)
				}
				return convs[0].ID
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The page's answer goes on for ReconnectGrace once its stream left (a reload continues it).
			b := newBrowser(t, webtest.Options{TokenDelay: 50 * time.Millisecond, Demo: true,
				Limits: handlers.Limits{ReconnectGrace: 300 * time.Millisecond}})
			baseline := runtime.NumGoroutine()
			ctx, cancel := context.WithCancel(context.Background())
			resp, convID := tt.open(t, b, ctx)
			readSSE(t, resp.Body, tt.first) // the answer has started streaming
			cancel()
			resp.Body.Close()

			deadline := time.Now().Add(10 * time.Second)
			for {
				_, turns, err := b.app.Store.Conversation(context.Background(), graphrag.AllConversations, convID())
				if err == nil && len(turns) == 1 && turns[0].Status == "cancelled" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("turn not cancelled: %+v %v", turns, err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			calls := b.app.Model.ChatCalls()
			for time.Now().Before(deadline) && runtime.NumGoroutine() > baseline+2 {
				time.Sleep(20 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > baseline+2 {
				t.Errorf("goroutines: %d, baseline %d", n, baseline)
			}
			time.Sleep(200 * time.Millisecond)
			if b.app.Model.ChatCalls() != calls {
				t.Error("the model was still called after the client left")
			}
		})
	}
}

func do(t *testing.T, client *http.Client, req *http.Request) *http.Response {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	return resp
}

func TestStopButtonEndsTheAnswerAsFarAsItGot(t *testing.T) {
	b := newBrowser(t, webtest.Options{TokenDelay: 50 * time.Millisecond, Demo: true})
	stream, _ := b.ask(webtest.DelhiQuestion, "")
	resp, err := b.client.Get(b.srv.URL + stream)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body := bufio.NewReader(resp.Body)
	readSSE(t, body, "answer")
	run := strings.TrimPrefix(stream, "/chat/stream/")
	stopResp, doc := b.post("/chat/stop/"+run, url.Values{}, true)
	if stopResp.StatusCode != http.StatusOK || !strings.Contains(doc.Text(), "Stopping") {
		t.Fatalf("stop: %d %s", stopResp.StatusCode, doc.Text())
	}
	events := readSSE(t, body, "done")
	if len(events) == 0 {
		t.Fatal("the stream ended without the stopped turn")
	}
	done := events[len(events)-1]
	if done.name != "done" || !strings.Contains(fragment(t, done.data).Find(".notice").Text(), "You stopped this answer") {
		t.Fatalf("after stop: %+v", done)
	}
}

func TestQuestionsAreCheckedBeforeAnyWork(t *testing.T) {
	b := newBrowser(t, webtest.Options{Limits: handlers.Limits{MaxQuestionChars: 20}})
	tests := []struct {
		name, question string
		want           int
	}{
		{"empty", "   ", http.StatusBadRequest},
		{"too long", strings.Repeat("a", 21), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, doc := b.post("/chat/ask", url.Values{"question": {tt.question}}, true)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if resp.Header.Get("HX-Retarget") != "#flash" || doc.Find("p.notice.bad").Length() != 1 {
				t.Errorf("the refusal is not shown in the alert region: %s", doc.Text())
			}
		})
	}
	if b.app.Model.ChatCalls() != 0 {
		t.Error("the model was called")
	}
}

func TestEmptyChatExplainsAndSuggestsQuestionsFromTheDocuments(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	_, doc := b.get("/")
	if doc.Find("#empty-state .notice a[href='/documents']").Length() != 1 {
		t.Error("an empty app does not point to the documents page")
	}
	b = newBrowser(t, webtest.Options{Demo: true})
	_, doc = b.get("/")
	examples := doc.Find("#empty-state form.examples button[name=question]")
	if examples.Length() < 2 || !strings.Contains(examples.Text(), "“") {
		t.Fatalf("examples: %q", examples.Text())
	}
}

func TestConversationsCanBeRenamedAndDeleted(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	stream, convID := b.ask("What does Nexa AI do?", "")
	b.stream(stream)

	resp, _ := b.post("/chat/conversations/"+convID+"/rename", url.Values{"title": {"Nexa <b>notes</b>"}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename: %d", resp.StatusCode)
	}
	_, doc := b.get("/")
	link := doc.Find("#conversations a").First()
	if link.Text() != "Nexa <b>notes</b>" || doc.Find("#conversations b").Length() != 0 {
		t.Errorf("renamed conversation: %q", link.Text())
	}
	resp, doc = b.post("/chat/conversations/"+convID+"/delete", url.Values{}, false)
	if resp.StatusCode != http.StatusOK || doc.Find("form input[name=confirmed]").Length() != 1 {
		t.Fatalf("delete did not ask first: %d", resp.StatusCode)
	}
	resp, _ = b.post("/chat/conversations/"+convID+"/delete", url.Values{"confirmed": {"yes"}}, true)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("HX-Redirect") != "/" {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if convs, _ := b.app.Store.Conversations(context.Background(), graphrag.AllConversations); len(convs) != 0 {
		t.Errorf("conversations left: %d", len(convs))
	}
}

func TestAskWithoutJavaScriptAnswersThenShowsTheConversation(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	resp, _ := b.post("/chat/ask", url.Values{"question": {webtest.DelhiQuestion}}, false)
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/?c=") {
		t.Fatalf("status %d, location %q", resp.StatusCode, loc)
	}
	_, doc := b.get(loc)
	if !strings.Contains(doc.Find("article.turn .answer").Text(), "600 EUR") || doc.Find("article.turn ol.citations li").Length() != 2 {
		t.Errorf("conversation page: %s", doc.Find("#turns").Text())
	}
}

// Row 22 of RELIABILITY.md: the answers being written at once are capped; past the cap a question is
// refused before it costs anything.
func TestAnswersInFlightAreCapped(t *testing.T) {
	b := newBrowser(t, webtest.Options{Limits: handlers.Limits{MaxRunning: 1}})
	b.ask("first question", "")
	resp, doc := b.post("/chat/ask", url.Values{"question": {"second question"}}, true)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(doc.Text(), "many questions") {
		t.Errorf("second question: %d %q", resp.StatusCode, doc.Text())
	}
	if b.app.Model.ChatCalls() != 0 {
		t.Error("the model was called before any stream opened")
	}
}

// A model that writes no citation markers (the small local ones never do): the finished turn still lists
// its sources, says they were matched by wording, and counts the statement no source supports.
func TestAnswerWithoutMarkersShowsSourcesMatchedByWording(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true, Answers: map[string]string{
		"S-Bahn": "The S-Bahn lines S1 and S8 connect the airport with the central station every 10 minutes. " +
			"The trains are painted gold and serve free champagne on board.",
	}})
	stream, _ := b.ask("Which S-Bahn lines connect Munich Airport with the central station?", "")
	events := b.stream(stream)
	last := events[len(events)-1]
	if last.name != "done" {
		t.Fatalf("last event %q", last.name)
	}
	turn := fragment(t, last.data).Find("article.turn")
	if !strings.Contains(turn.Find(".answer").Text(), "every 10 minutes") || turn.Find(".answer a[href^='#cite-']").Length() == 0 {
		t.Errorf("the answer has no citation link: %q", turn.Find(".answer").Text())
	}
	if cites := turn.Find("ol.citations > li"); cites.Length() == 0 || !strings.Contains(cites.Text(), "munich-travel-tips.md") {
		t.Errorf("citations: %q", cites.Text())
	}
	badges := turn.Find(".badge").Text()
	for _, want := range []string{"sources matched by wording", "1 statement not found in the sources"} {
		if !strings.Contains(badges, want) {
			t.Errorf("badges %q lack %q", badges, want)
		}
	}
	if trace := turn.Find("details.trace").Text(); !strings.Contains(trace, "champagne") {
		t.Errorf("the trace does not name the unsupported sentence:\n%s", trace)
	}
}
