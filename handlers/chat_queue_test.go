package handlers_test

import (
	"bufio"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm"
)

// openStream reads a page stream in the background: its events arrive on the channel, which closes at the
// end of the stream.
func (b *browser) openStream(path string) <-chan sseEvent {
	b.t.Helper()
	resp, err := b.client.Get(b.srv.URL + path)
	if err != nil {
		b.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.t.Fatalf("stream %s: %d", path, resp.StatusCode)
	}
	out := make(chan sseEvent, 256)
	go func() {
		defer resp.Body.Close()
		defer close(out)
		br := bufio.NewReader(resp.Body)
		for {
			evs := readSSE(b.t, br, "status")
			for _, ev := range evs {
				out <- ev
			}
			if len(evs) == 0 || evs[len(evs)-1].name == "done" {
				return
			}
		}
	}()
	return out
}

// until collects events from ch until one is named name and its data contains text, or the stream ends.
func until(t *testing.T, ch <-chan sseEvent, name, text string) ([]sseEvent, bool) {
	t.Helper()
	var seen []sseEvent
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return seen, false
			}
			seen = append(seen, ev)
			if ev.name == name && strings.Contains(ev.data, text) {
				return seen, true
			}
		case <-timeout:
			t.Fatalf("no %s event with %q in 30s; saw %v", name, text, seen)
		}
	}
}

// With the local model's one call at a time, a question asked while another's answer is being written
// shows its place in line in the chat's status line as the line moves, then its own steps again, and its
// cost says how long it waited.
func TestChatShowsPlaceInLineWhileTheModelIsBusy(t *testing.T) {
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release)
	b := newBrowser(t, webtest.Options{Demo: true, AnswerGate: gate, ModelCalls: llm.DefaultConcurrency("http://127.0.0.1:8081/v1")})

	first, _ := b.ask(webtest.DelhiQuestion, "")
	firstEvents := b.openStream(first)
	for deadline := time.Now().Add(20 * time.Second); b.app.AnswersWaiting() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first answer never reached the model")
		}
	}
	second, _ := b.ask("What is in Munich?", "")
	secondEvents := b.openStream(second)
	if seen, ok := until(t, secondEvents, "status", "The model is busy; you are next in line…"); !ok {
		t.Fatalf("the second question's stream never showed its place in line: %v", seen)
	}
	third, _ := b.ask("Who founded Nexa AI?", "")
	thirdEvents := b.openStream(third)
	if seen, ok := until(t, thirdEvents, "status", "The model is busy: 1 ahead of you in line…"); !ok {
		t.Fatalf("the third question's stream never showed one question ahead of it: %v", seen)
	}

	time.Sleep(300 * time.Millisecond) // a wait long enough for the cost to mention it
	release()
	for i, ch := range []<-chan sseEvent{firstEvents, secondEvents, thirdEvents} {
		rest, ok := until(t, ch, "done", "")
		if !ok {
			t.Fatalf("question %d: the stream ended without done: %v", i+1, rest)
		}
		if i == 0 {
			continue
		}
		var statuses []string
		usage := ""
		for _, ev := range rest {
			switch ev.name {
			case "status":
				statuses = append(statuses, ev.data)
			case "usage":
				usage = ev.data
			}
		}
		// After its wait (seen above) the status line says its own step again: a status after the first
		// "busy" of the rest of the stream, or, when the stream sends no "busy" again (the run's events come
		// from the store, which keeps the wait once), any status of the rest. (A run may end while queued for a
		// call it no longer needs, its last status "busy": the turn that "done" brings replaces the line then.)
		ownAgain := false
		from := 0
		if j := slices.IndexFunc(statuses, func(st string) bool { return strings.Contains(st, "busy") }); j >= 0 {
			from = j + 1
		}
		for _, later := range statuses[from:] {
			ownAgain = ownAgain || !strings.Contains(later, "busy")
		}
		if !ownAgain {
			t.Errorf("question %d: statuses after the wait %q, want its own steps again", i+1, statuses)
		}
		if !strings.Contains(usage, "in line for the model") {
			t.Errorf("question %d: cost %q does not say how long it waited", i+1, usage)
		}
	}
}
