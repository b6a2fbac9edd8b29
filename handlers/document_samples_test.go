package handlers_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/samples"
)

// TestTryTheSampleDocuments: the empty documents page offers the samples; the button ingests every one
// through the upload path (the list follows their progress), they all end done, and the page then lists
// them instead of the offer. A second press changes nothing.
func TestTryTheSampleDocuments(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	_, page := b.get("/documents")
	form := page.Find("form#samples[hx-post='/documents/samples']")
	if form.Length() != 1 || form.Find("button").Text() != "Try it with sample documents" {
		t.Fatalf("the empty page does not offer the samples:\n%s", page.Find("#doc-live").Text())
	}
	csrf := form.Find("input[name=_csrf]").AttrOr("value", "")
	resp, doc := b.post("/documents/samples", url.Values{"_csrf": {csrf}}, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	want := len(samples.List())
	if n := doc.Find("#upload-result-list li.ok").Length(); n != want {
		t.Errorf("%d samples received, want %d: %s", n, want, doc.Find("#upload-result-list").Text())
	}
	if doc.Find("#doc-live[hx-swap-oob][sse-connect]").Length() != 1 {
		t.Error("the refreshed list does not follow the samples' progress")
	}
	docs := b.app.WaitDone(t, 30*time.Second)
	if len(docs) != want {
		t.Fatalf("%d documents, want %d", len(docs), want)
	}
	for _, d := range docs {
		if d.Status != graphrag.StatusDone || d.Chunks == 0 {
			t.Errorf("%s: %s with %d chunks, want done", d.Name, d.Status, d.Chunks)
		}
	}
	_, page = b.get("/documents")
	if page.Find("form#samples").Length() != 0 || page.Find("#documents tbody tr").Length() != want {
		t.Errorf("after the samples the page lists %d rows and offers the samples %d time(s)",
			page.Find("#documents tbody tr").Length(), page.Find("form#samples").Length())
	}
	_, doc = b.post("/documents/samples", url.Values{"_csrf": {csrf}}, true)
	if n := doc.Find("#upload-result-list li.same").Length(); n != want {
		t.Errorf("a second press: %d samples said to be there already, want %d", n, want)
	}
}
