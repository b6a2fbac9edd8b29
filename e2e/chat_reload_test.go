package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// A page reloaded while its answer is being written shows the answer so far and goes on with the same run
// to the end: its steps once each, one turn in the conversation.
func TestBrowserReloadContinuesTheAnswer(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	app := webtest.New(t, webtest.Options{Demo: true, TokenDelay: 120 * time.Millisecond})
	s := newSession(t, startServer(t, app))
	s.do("open chat", chromedp.Navigate(s.base+"/"), chromedp.WaitVisible(chromedp.CSS("#question")))
	s.do("ask", chromedp.SendKeys(chromedp.CSS("#question"), webtest.DelhiQuestion), chromedp.Click(chromedp.CSS("#ask-form button[type=submit]")))
	s.waitFor("the answer streaming", "!!document.querySelector('article.turn[sse-connect] .answer p:not(.placeholder)')", 30*time.Second)
	before := eval[string](s, "document.querySelector('article.turn .answer').innerText")
	if !strings.Contains(eval[string](s, "location.search"), "c=") {
		t.Fatalf("the page's address names no conversation: %s", eval[string](s, "location.href"))
	}

	s.do("reload", chromedp.Reload())
	s.waitFor("the answer streaming again", "!!document.querySelector('article.turn[sse-connect] .answer p:not(.placeholder)')", 10*time.Second)
	again := eval[string](s, "document.querySelector('article.turn .answer').innerText")
	if len(strings.TrimSpace(again)) < len(strings.TrimSpace(before))/2 {
		t.Errorf("after the reload the answer starts over: %q, before %q", again, before)
	}
	s.screenshot("14-chat-reloaded-mid-answer")
	live := eval[[]string](s, "[...document.querySelectorAll('article.turn[sse-connect] .steps > li')].map(li => li.innerText)")
	seen := map[string]bool{}
	for _, step := range live {
		if seen[step] {
			t.Errorf("step shown twice after the reload: %q (%q)", step, live)
		}
		seen[step] = true
	}
	s.waitFor("the finished answer", "document.querySelectorAll('article.turn:not([sse-connect]) ol.citations > li').length === 2", 60*time.Second)
	if answer := eval[string](s, "document.querySelector('article.turn .answer').innerText"); !strings.Contains(answer, "600 EUR") {
		t.Errorf("answer: %q", answer)
	}
	s.checkPage("chat after a reload")
	convs, err := app.Store.Conversations(context.Background(), graphrag.AllConversations)
	if err != nil || len(convs) != 1 {
		t.Fatalf("conversations: %+v %v", convs, err)
	}
	_, turns, err := app.Store.Conversation(context.Background(), graphrag.AllConversations, convs[0].ID)
	if err != nil || len(turns) != 1 || turns[0].Status != "done" {
		t.Errorf("turns: %+v %v", turns, err)
	}
}
