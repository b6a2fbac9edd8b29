package handlers_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// apiStream opens a JSON API stream (POST with body, GET without) with the Last-Event-ID a reconnecting
// client sends (none when empty); drop closes the connection.
func apiStream(t *testing.T, method, url, body, lastEventID string) (resp *http.Response, drop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	drop = func() {
		cancel()
		resp.Body.Close()
	}
	t.Cleanup(drop)
	return resp, drop
}

// A question asked through one server's JSON API streams from another sharing the store (a load balancer
// without sticky sessions sends the reconnect anywhere): the client drops the stream mid-answer and
// reconnects to the other with Last-Event-ID; it gets every event after the last it had, none twice and
// none lost, while the run goes on in the first server; the tokens of both streams make the answer.
func TestAPIStreamResumesOnAnotherServer(t *testing.T) {
	app := webtest.New(t, webtest.Options{Demo: true, TokenDelay: 40 * time.Millisecond})
	a, b := httptest.NewServer(app.Handler), httptest.NewServer(app.Peer())
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)

	resp, drop := apiStream(t, http.MethodPost, a.URL+"/api/v1/ask", `{"question":"`+webtest.DelhiQuestion+`"}`, "")
	events := resp.Header.Get("Content-Location")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(events, "/api/v1/conversations/") {
		t.Fatalf("ask: %d, Content-Location %q", resp.StatusCode, events)
	}
	first := readSSE(t, resp.Body, "token")
	drop()
	if len(first) == 0 || first[len(first)-1].name != "token" {
		t.Fatalf("the first stream before any token: %+v", first)
	}

	resumed, _ := apiStream(t, http.MethodGet, b.URL+events, "", first[len(first)-1].id)
	if resumed.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resumed.Body)
		t.Fatalf("the resumed stream: %d %s", resumed.StatusCode, body)
	}
	rest := readSSE(t, resumed.Body, "done")
	if len(rest) == 0 || rest[len(rest)-1].name != "done" {
		t.Fatalf("the resumed stream ended without done: %+v", rest)
	}
	var done struct {
		ConversationID string       `json:"conversation_id"`
		TurnID         string       `json:"turn_id"`
		Status         string       `json:"status"`
		Result         agent.Result `json:"result"`
	}
	if err := json.Unmarshal([]byte(rest[len(rest)-1].data), &done); err != nil || done.Status != agent.TurnDone ||
		!strings.Contains(done.Result.Answer, "600 EUR") || len(done.Result.Citations) == 0 || len(done.Result.Trace) == 0 {
		t.Fatalf("done: %+v %v", done, err)
	}
	if events != "/api/v1/conversations/"+done.ConversationID+"/turns/"+done.TurnID+"/events" {
		t.Errorf("Content-Location %q is not the events of turn %s", events, done.TurnID)
	}

	// Every stored event once, in order: the first stream's ids are 1..k, the resumed one's k+1 on.
	var replay []agent.Event
	want := 1
	for _, ev := range append(first, rest[:len(rest)-1]...) {
		if n, err := strconv.Atoi(ev.id); err != nil || n != want {
			t.Fatalf("event %q has id %q, want %d (events: %+v then %+v)", ev.name, ev.id, want, first, rest)
		}
		want++
		var e agent.Event
		if err := json.Unmarshal([]byte(ev.data), &e); err != nil || string(e.Type) != ev.name {
			t.Fatalf("event %q: %s (%v)", ev.name, ev.data, err)
		}
		replay = append(replay, e)
	}
	if answer, _ := agent.Replay(replay); !strings.Contains(answer, "600 EUR") || !strings.HasPrefix(done.Result.Answer, strings.TrimSpace(answer)[:20]) {
		t.Errorf("the tokens of both streams: %q; the answer: %q", answer, done.Result.Answer)
	}
	if count := len(rest) - 1; count == 0 {
		t.Error("the resumed stream sent nothing before done")
	}

	// One run, answered by the first server; the finished turn streams its done at once from either.
	_, turns, err := app.Store.Conversation(context.Background(), graphrag.AllConversations, done.ConversationID)
	if err != nil || len(turns) != 1 || turns[0].Status != agent.TurnDone {
		t.Fatalf("turns: %+v %v", turns, err)
	}
	again, _ := apiStream(t, http.MethodGet, a.URL+events, "", "")
	if evs := readSSE(t, again.Body, "done"); len(evs) == 0 || evs[len(evs)-1].name != "done" || !strings.Contains(evs[len(evs)-1].data, "600 EUR") {
		t.Errorf("the finished turn's events: %+v", evs)
	}
	if calls := app.Model.ChatCalls(); calls == 0 {
		t.Error("no model call")
	}
	unknown, _ := apiStream(t, http.MethodGet, b.URL+"/api/v1/conversations/"+done.ConversationID+"/turns/t-unknown/events", "", "")
	if unknown.StatusCode != http.StatusNotFound {
		t.Errorf("events of an unknown turn: %d, want 404", unknown.StatusCode)
	}
}

// chunkEvent is one event of a /v1 stream: its SSE id and its data.
type chunkEvent struct{ id, data string }

// readChunks reads a /v1 stream's events until stop says so or the stream ends.
func readChunks(t *testing.T, r io.Reader, stop func(chunkEvent) bool) []chunkEvent {
	t.Helper()
	var out []chunkEvent
	var ev chunkEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			ev.data = strings.TrimPrefix(line, "data: ")
		case line == "" && ev.data != "":
			out = append(out, ev)
			if stop(ev) {
				return out
			}
			ev = chunkEvent{}
		}
	}
	return out
}

// A streamed /v1 completion whose connection drops goes on when the client sends the same request again
// with Last-Event-ID, to another server sharing the store: the chunks after the last it had, none twice,
// in OpenAI's chunk format, the same completion ID throughout; dropped mid-steps or mid-answer, the
// content of both streams is the answer, whole.
func TestOpenAIStreamResumesOnAnotherServer(t *testing.T) {
	app := webtest.New(t, webtest.Options{Demo: true, TokenDelay: 20 * time.Millisecond})
	a, b := httptest.NewServer(app.Handler), httptest.NewServer(app.Peer())
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	body := `{"model":"hopwise","stream":true,"hopwise_steps":true,"messages":[{"role":"user","content":"` + webtest.DelhiQuestion + `"}]}`
	post := func(srv *httptest.Server, lastEventID string) (*http.Response, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if lastEventID != "" {
			req.Header.Set("Last-Event-ID", lastEventID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		drop := func() { cancel(); resp.Body.Close() }
		t.Cleanup(drop)
		return resp, drop
	}
	type chunk struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Choices []struct {
			Delta struct {
				Content          string `json:"content"`
				ReasoningContent string `json:"reasoning_content"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Event *struct{ Type string } `json:"hopwise_event"`
	}
	decode := func(evs []chunkEvent) []chunk {
		var out []chunk
		for _, ev := range evs {
			if ev.data == "[DONE]" {
				continue
			}
			var c chunk
			if err := json.Unmarshal([]byte(ev.data), &c); err != nil || c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-t") {
				t.Fatalf("not a chunk: %s (%v)", ev.data, err)
			}
			out = append(out, c)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		drop func(chunkEvent) bool // the chunk after which the first stream drops
	}{
		{"mid-steps", func(ev chunkEvent) bool { return strings.Contains(ev.data, `"hopwise_event"`) }},
		{"mid-answer", func(ev chunkEvent) bool { return strings.Contains(ev.data, `"content"`) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, drop := post(a, "")
			first := readChunks(t, resp.Body, tt.drop)
			drop()
			if len(first) == 0 || !tt.drop(first[len(first)-1]) || first[len(first)-1].id == "" {
				t.Fatalf("the first stream: %+v", first)
			}
			resumed, _ := post(b, first[len(first)-1].id)
			if resumed.StatusCode != http.StatusOK {
				t.Fatalf("resumed: %d", resumed.StatusCode)
			}
			rest := readChunks(t, resumed.Body, func(ev chunkEvent) bool { return ev.data == "[DONE]" })
			if len(rest) < 2 || rest[len(rest)-1].data != "[DONE]" {
				t.Fatalf("the resumed stream: %+v", rest)
			}
			seen := map[string]bool{}
			for _, ev := range append(first, rest[:len(rest)-1]...) {
				if seen[ev.id] || ev.id == "" {
					t.Errorf("chunk id %q sent twice or empty: %s", ev.id, ev.data)
				}
				seen[ev.id] = true
			}
			chunks := append(decode(first), decode(rest)...)
			var content strings.Builder
			for _, c := range chunks {
				if c.ID != chunks[0].ID {
					t.Errorf("completion ID %s, then %s", chunks[0].ID, c.ID)
				}
				for _, ch := range c.Choices {
					content.WriteString(ch.Delta.Content)
				}
			}
			last := chunks[len(chunks)-1]
			if len(last.Choices) != 1 || last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "stop" {
				t.Errorf("the last chunk: %+v", last)
			}
			turnID := strings.TrimPrefix(chunks[0].ID, "chatcmpl-")
			var stored graphrag.Turn
			convs, _ := app.Store.Conversations(context.Background(), graphrag.AllConversations)
			for _, conv := range convs {
				_, turns, _ := app.Store.Conversation(context.Background(), graphrag.AllConversations, conv.ID)
				for _, tn := range turns {
					if tn.ID == turnID {
						stored = tn
					}
				}
			}
			if stored.Status != agent.TurnDone || !strings.Contains(content.String(), "600 EUR") ||
				!strings.HasPrefix(content.String(), strings.TrimRight(stored.Answer, "\n")) || !strings.Contains(content.String(), "\n\nSources:\n[1] ") {
				t.Errorf("content of both streams %q; the stored answer (%s) %q", content.String(), stored.Status, stored.Answer)
			}
		})
	}
	// An id Hopwise did not send is refused, and asks nothing.
	resp, _ := post(b, "not-an-id")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a foreign Last-Event-ID: %d, want 400", resp.StatusCode)
	}
}

// The events an ended run left in the store (its process stopped before it deleted them) are pruned by a
// process once one of its runs ends; those of the run just ended go too, a few seconds after it.
func TestEndedRunsLeaveNoEvents(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	ctx := context.Background()
	if err := b.app.Store.AppendRunEvents(ctx, "t-left", []graphrag.RunEvent{{Seq: 1, Data: []byte(`{"type":"token","delta":"x"}`)}}); err != nil {
		t.Fatal(err)
	}
	stream, _ := b.ask(webtest.DelhiQuestion, "")
	events := b.stream(stream)
	if len(events) == 0 || !strings.Contains(events[len(events)-1].data, "600 EUR") {
		t.Fatalf("the answer: %+v", events)
	}
	id := strings.TrimPrefix(strings.Split(stream, "?")[0], "/chat/stream/")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left, err := b.app.Store.RunEvents(ctx, "t-left", 0, 0)
		own, err2 := b.app.Store.RunEvents(ctx, id, 0, 0)
		if err == nil && err2 == nil && len(left) == 0 && len(own) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the run: %d events left of the ended run, %d of its own (%v %v)", len(left), len(own), err, err2)
		}
	}
}
