package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestStatusPageExtractsTheGraphAgain: with a second chat model configured for re-extraction, the status
// page offers to extract the graph again with it; the button starts it, the section polls itself with
// the graph's progress while the old graph still answers, then says it is done, and every relation
// around Delhi is then the second model's.
func TestStatusPageExtractsTheGraphAgain(t *testing.T) {
	second := llmtest.New(t)
	second.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		r, ok := graphragtest.SecondExtraction(req)
		r.Delay = 50 * time.Millisecond
		return r, ok
	})
	b := newBrowser(t, webtest.Options{Demo: true, ReextractWith: second})
	delhiRelations := func() (all, bySecond int) {
		edges, err := b.app.Store.Neighborhood(t.Context(), []string{graphrag.NormalizeKey("Delhi")}, 1, 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range edges {
			if graphragtest.IsSecond(e.Description) {
				bySecond++
			}
		}
		return len(edges), bySecond
	}
	if all, bySecond := delhiRelations(); all == 0 || bySecond != 0 {
		t.Fatalf("the demo's relations around Delhi = %d, %d of the second model; want the first model's", all, bySecond)
	}

	_, page := b.get("/status")
	form := page.Find("#reindex form#reextract")
	if form.Length() != 1 || form.Find(`input[name="_csrf"]`).Length() != 1 || form.Find(`input[name="graph"]`).Length() != 1 ||
		!strings.Contains(form.Find("button").Text(), "Extract the graph again with second-model") {
		t.Fatalf("status page has no form to extract the graph again: %q", strings.Join(strings.Fields(page.Find("#reindex").Text()), " "))
	}
	resp, frag := b.post("/status/reindex", url.Values{"graph": {"on"}}, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /status/reindex graph = %d", resp.StatusCode)
	}
	running := frag.Find("section#reindex")
	if running.AttrOr("hx-trigger", "") != "every 2s" || running.Find("#reindex-progress progress").Length() != 1 ||
		!strings.Contains(running.Find("#reindex-progress").Text(), "Extracting the graph again with second-model") {
		t.Errorf("the fragment after the button = %q, want the graph's progress polling", strings.Join(strings.Fields(running.Text()), " "))
	}

	deadline := time.Now().Add(60 * time.Second)
	var text string
	sawOld := false
	for {
		_, frag := b.get("/status/reindex")
		section := frag.Find("section#reindex")
		text = strings.Join(strings.Fields(section.Find("#reindex-progress").Text()), " ")
		if _, polling := section.Attr("hx-trigger"); !polling {
			break
		}
		if all, bySecond := delhiRelations(); all > 0 && bySecond == 0 {
			sawOld = true
		}
		if time.Now().After(deadline) {
			t.Fatalf("the re-extraction still runs after 60 s: %q", text)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !sawOld {
		t.Errorf("no read while the re-extraction ran found the old graph answering")
	}
	if !strings.Contains(text, "Re-index done: the graph of") || !strings.Contains(text, "second-model") {
		t.Errorf("the progress after the re-extraction = %q, want it done with second-model", text)
	}
	if all, bySecond := delhiRelations(); all == 0 || bySecond != all {
		t.Errorf("relations around Delhi after the re-extraction = %d, %d of the second model; want all of it", all, bySecond)
	}
	if second.ChatCalls() == 0 {
		t.Errorf("the second model was never asked")
	}
}

// TestStatusPageShowsAReindexRunningElsewhere: while another process sharing the store (a `hopwise reindex
// --graph`) holds its re-index lease, the status page says a re-index is already running there, with its
// progress, offers no button and follows it; a button pressed just before (a page loaded earlier) starts
// nothing and shows the same. Once that process has ended, the buttons are back.
func TestStatusPageShowsAReindexRunningElsewhere(t *testing.T) {
	second := llmtest.New(t)
	second.Handle(graphragtest.SecondExtraction)
	b := newBrowser(t, webtest.Options{Demo: true, ReextractWith: second})
	const other = "reindex/another-host:pid:[1]/4242/0123456789ab"
	if _, ok, err := b.app.Store.TakeLease(t.Context(), graphrag.ReindexLease, other, time.Minute); err != nil || !ok {
		t.Fatalf("TakeLease for the other process: %v, %v", ok, err)
	}
	elsewhere := func(what string, section *goquery.Selection) {
		t.Helper()
		text := strings.Join(strings.Fields(section.Find("#reindex-elsewhere").Text()), " ")
		if !strings.Contains(text, "A re-index is already running in another process ("+other+")") ||
			section.AttrOr("hx-trigger", "") != "every 2s" || section.Find("form").Length() != 0 {
			t.Errorf("%s: the search index section = %q (polling %q, %d forms); want the re-index elsewhere, followed, no button",
				what, strings.Join(strings.Fields(section.Text()), " "), section.AttrOr("hx-trigger", ""), section.Find("form").Length())
		}
	}
	_, page := b.get("/status")
	elsewhere("the status page", page.Find("section#reindex"))
	resp, frag := b.post("/status/reindex", url.Values{"graph": {"on"}}, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /status/reindex graph = %d", resp.StatusCode)
	}
	elsewhere("the fragment after the button", frag.Find("section#reindex"))
	time.Sleep(100 * time.Millisecond)
	if n := second.ChatCalls(); n != 0 {
		t.Errorf("the button asked the model %d times while another process re-indexes, want none", n)
	}
	if err := b.app.Store.ReleaseLease(t.Context(), graphrag.ReindexLease, other); err != nil {
		t.Fatal(err)
	}
	_, page = b.get("/status")
	section := page.Find("section#reindex")
	if section.Find("#reindex-elsewhere").Length() != 0 || section.Find("form#reextract").Length() != 1 {
		t.Errorf("the search index section once the other process ended = %q; want the buttons back", strings.Join(strings.Fields(section.Text()), " "))
	}
}
