package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// Issue 21, item 7: the cap of answers being written covers every way to ask: the page's streamed runs,
// the page's form without JavaScript, and the JSON API, plain and streamed.
func TestEveryAskRouteSharesTheCap(t *testing.T) {
	gate := make(chan struct{})
	var open sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	t.Cleanup(release)
	b := newBrowser(t, webtest.Options{Demo: true, Limits: handlers.Limits{MaxRunning: 1}, AnswerGate: gate})
	apiAsk := func(accept string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/api/ask", strings.NewReader(`{"question":"What is in Munich?"}`))
		req.Header.Set("Content-Type", "application/json")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	refusedEverywhere := func(while string) {
		t.Helper()
		if resp, _ := b.post("/chat/ask", url.Values{"question": {"page question"}}, true); resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s: the page's ask: %d, want 503", while, resp.StatusCode)
		}
		if resp, _ := b.post("/chat/ask", url.Values{"question": {"form question"}}, false); resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s: the form without JavaScript: %d, want 503", while, resp.StatusCode)
		}
		for _, accept := range []string{"", "text/event-stream"} {
			resp := apiAsk(accept)
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable {
				t.Errorf("%s: the JSON API (Accept %q): %d, want 503", while, accept, resp.StatusCode)
			}
		}
	}
	waitAtGate := func() {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for b.app.AnswersWaiting() == 0 {
			if time.Now().After(deadline) {
				t.Fatal("no answer reached the model")
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// A JSON answer being written holds the one place.
	done := make(chan int, 1)
	go func() {
		resp := apiAsk("")
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	waitAtGate()
	refusedEverywhere("while a JSON answer is written")
	release()
	if code := <-done; code != http.StatusOK {
		t.Fatalf("the first JSON ask: %d", code)
	}

	// The place is given back; a page run waiting for its stream then holds it.
	stream, _ := b.ask("first page question about Munich", "")
	refusedEverywhere("while a page run waits for its stream")
	b.stream(stream)
	resp := apiAsk("")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after both finished, the JSON API: %d", resp.StatusCode)
	}
}
