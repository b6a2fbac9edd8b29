package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestStatusPageReindexes: with a new embedding model of 32 dimensions configured over the demo store of
// 256, the status page says the store's vectors are another model's and offers the re-index; its button
// starts it and the progress fragment polls itself while it runs, then says it is done; the page then
// names the new model as the one searches use, offers no warning, and search answers with it.
func TestStatusPageReindexes(t *testing.T) {
	next := llmtest.New(t, llmtest.WithEmbedDim(32))
	next.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Delay: 100 * time.Millisecond}, req.IsEmbed()
	})
	b := newBrowser(t, webtest.Options{Demo: true, ReindexTo: next, ReindexDim: 32})

	_, page := b.get("/status")
	section := page.Find("#reindex")
	if text := section.Text(); !strings.Contains(text, "test-embed") || !strings.Contains(text, "256 dimensions") ||
		!strings.Contains(text, "new-embed") || !strings.Contains(text, "32 dimensions") {
		t.Errorf("status page's search index section = %q, want both models and their dimensions", strings.Join(strings.Fields(text), " "))
	}
	if page.Find("#reindex-needed").Length() != 1 {
		t.Error("status page does not say the store's vectors are another model's")
	}
	form := section.Find(`form[action="/status/reindex"]`)
	if form.Length() != 1 || form.Find(`input[name="_csrf"]`).Length() != 1 || !strings.Contains(form.Find("button").Text(), "Re-index") {
		t.Fatalf("status page has no re-index form with a CSRF field and a Re-index button")
	}

	resp, frag := b.post("/status/reindex", url.Values{"embeddings": {"on"}}, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /status/reindex = %d", resp.StatusCode)
	}
	running := frag.Find("section#reindex")
	if running.AttrOr("hx-get", "") != "/status/reindex" || running.AttrOr("hx-trigger", "") != "every 2s" ||
		running.Find("#reindex-progress progress").Length() != 1 || running.Find("form").Length() != 0 {
		t.Errorf("the fragment after the button = %q, want the section polling /status/reindex with its progress and no button", running.Text())
	}
	if resp, _ := b.post("/status/reindex", url.Values{}, false); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/status#reindex" {
		t.Errorf("plain POST while it runs = %d to %q, want 303 to /status#reindex", resp.StatusCode, resp.Header.Get("Location"))
	}

	deadline := time.Now().Add(30 * time.Second)
	var text string
	for {
		_, frag := b.get("/status/reindex")
		section := frag.Find("section#reindex")
		text = strings.Join(strings.Fields(section.Find("#reindex-progress").Text()), " ")
		if _, polling := section.Attr("hx-trigger"); !polling {
			if section.Find("#reindex-needed").Length() != 0 || section.Find("form").Length() != 1 {
				t.Errorf("the section after the re-index still warns, or offers no button: %q", strings.Join(strings.Fields(section.Text()), " "))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the re-index still runs after 30 s: %q", text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(text, "Re-index done") || !strings.Contains(text, "new-embed") {
		t.Errorf("the progress after the re-index = %q, want it done with new-embed", text)
	}
	if sp := b.app.Store.EmbeddingSpace(); sp != (graphrag.EmbeddingSpace{Model: "new-embed", Dim: 32}) {
		t.Errorf("the store's space after the re-index = %+v", sp)
	}
	_, page = b.get("/status")
	if page.Find("#reindex-needed").Length() != 0 || !strings.Contains(page.Find("#reindex p").First().Text(), "new-embed") {
		t.Errorf("status page after the re-index = %q, want new-embed searched and no warning", strings.Join(strings.Fields(page.Find("#reindex").Text()), " "))
	}
	calls := next.EmbedCalls()
	resp, _ = b.get("/api/v1/search?q=" + url.QueryEscape("Delhi Munich distance"))
	if resp.StatusCode != http.StatusOK || next.EmbedCalls() == calls {
		t.Errorf("search after the re-index = %d, %d calls to the new model; want 200 embedded by it", resp.StatusCode, next.EmbedCalls()-calls)
	}
}
