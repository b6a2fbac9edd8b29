package handlers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// Row 24 of RELIABILITY.md, the page's part: an answer that used the web says so, and web sources are
// marked as such; a web source with a script URL loses its link.
func TestAnswersSayWhenTheWebWasUsed(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	ctx := context.Background()
	now := time.Now()
	if err := b.app.Store.PutConversation(ctx, graphrag.Conversation{ID: "cweb", Title: "web", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	cites := []agent.Citation{
		{N: 1, Kind: agent.KindWeb, URL: "https://example.org/eu261", Title: "EU261 explained", Snippet: "600 EUR over 3,500 km"},
		{N: 2, Kind: agent.KindWeb, URL: "javascript:alert(1)", Title: "bad link"},
	}
	res := agent.Result{Answer: "600 EUR [1] [2]", Citations: cites, UsedWeb: true, Grounded: agent.GroundedFully}
	trace, _ := agent.EncodeTrace([]agent.Event{
		{Type: agent.EventWeb, Docs: []agent.DocVerdict{{ID: "https://example.org/eu261", URL: "https://example.org/eu261", Web: true, Useful: true, Reason: "the amounts"}}},
		{Type: agent.EventAnswer, Result: &res},
	})
	cj, _ := agent.EncodeCitations(cites)
	turn := graphrag.Turn{ID: "tweb", ConversationID: "cweb", Ordinal: 1, Question: "EU261?", Answer: res.Answer,
		Status: agent.TurnDone, Trace: trace, Citations: cj, CreatedAt: now}
	if err := b.app.Store.PutTurn(ctx, turn); err != nil {
		t.Fatal(err)
	}
	_, doc := b.get("/?c=cweb")
	article := doc.Find("article#turn-tweb")
	if !strings.Contains(article.Find(".badge").Text(), "used the web") {
		t.Errorf("badges: %q", article.Find(".badge").Text())
	}
	if article.Find("ol.citations .badge.web").Length() != 2 {
		t.Error("web sources are not marked as web")
	}
	link := article.Find("ol.citations a[href='https://example.org/eu261']")
	if link.Length() != 1 || !strings.Contains(link.AttrOr("rel", ""), "noopener") {
		t.Error("the web source does not link out safely")
	}
	if !strings.Contains(article.Find("details.trace").Text(), "web pages found with your question") {
		t.Errorf("the trace does not say the web was searched: %s", article.Find("details.trace").Text())
	}
	assertNoActiveContent(t, doc.Selection)
}
