package handlers_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// TestOriginalIsServedSafely: /documents/ID/original answers the uploaded bytes; a PDF opens in the
// browser as application/pdf, text as text/plain, and an HTML page only downloads, never rendered. (A
// file that failed to parse keeps no source: see TestOriginalType for a .pdf that is not one.)
func TestOriginalIsServedSafely(t *testing.T) {
	pdf, err := os.ReadFile("../graphrag/parse/testdata/sample.pdf")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]struct {
		body                    []byte
		ctype, disposition, csp string
	}{
		"EU rules.pdf": {pdf, "application/pdf", `inline; filename="EU rules.pdf"`, ""},
		"notes.md":     {[]byte("# Notes\n\nMunich is in Bavaria.\n"), "text/plain; charset=utf-8", `inline; filename=notes.md`, "sandbox"},
		"page.html":    {[]byte("<html><body><script>alert(document.cookie)</script><p>Munich</p></body></html>"), "application/octet-stream", `attachment; filename=page.html`, "sandbox"},
	}
	b := newBrowser(t, webtest.Options{})
	var upload []file
	for name, f := range files {
		upload = append(upload, file{name, f.body})
	}
	b.upload(upload, true)
	b.app.WaitDone(t, 20*time.Second)
	docs, err := b.app.Store.Documents(context.Background())
	if err != nil || len(docs) != len(files) {
		t.Fatalf("documents %d, %v", len(docs), err)
	}
	for _, d := range docs {
		want := files[d.Name]
		resp, err := b.client.Get(b.srv.URL + "/documents/" + d.ID + "/original")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want.body) {
			t.Errorf("%s: %d, %d bytes, want the %d uploaded", d.Name, resp.StatusCode, len(body), len(want.body))
		}
		if h.Get("Content-Type") != want.ctype || h.Get("Content-Disposition") != want.disposition || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: Content-Type %q, Content-Disposition %q, X-Content-Type-Options %q; want %q, %q, nosniff",
				d.Name, h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("X-Content-Type-Options"), want.ctype, want.disposition)
		}
		if want.csp != "" && h.Get("Content-Security-Policy") != want.csp {
			t.Errorf("%s: Content-Security-Policy %q, want %q", d.Name, h.Get("Content-Security-Policy"), want.csp)
		}
	}
	resp, err := b.client.Get(b.srv.URL + "/documents/dmissing/original")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown document: %d, want 404", resp.StatusCode)
	}
}

// TestDocumentPageLinksToTheOriginal: a PDF's page opens the original, and each passage names the page it
// starts on and opens the original there.
func TestDocumentPageLinksToTheOriginal(t *testing.T) {
	pdf, err := os.ReadFile("../graphrag/parse/testdata/realworld/long-chromium.pdf") // 13 pages
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, webtest.Options{})
	b.upload([]file{{"samples.pdf", pdf}}, true)
	id := b.app.WaitDone(t, 20*time.Second)[0].ID
	_, page := b.get("/documents/" + id)
	if href := page.Find("p.muted a.original").AttrOr("href", ""); href != "/documents/"+id+"/original" {
		t.Errorf("document page: original link %q", href)
	}
	links := page.Find("#chunks .section a.original")
	if links.Length() == 0 {
		t.Fatalf("no passage names its page:\n%s", page.Find("#chunks").Text())
	}
	if first := links.First(); first.Text() != "page 1" || first.AttrOr("href", "") != "/documents/"+id+"/original#page=1" {
		t.Errorf("first passage: %q -> %q, want page 1 -> #page=1", first.Text(), first.AttrOr("href", ""))
	}
	var n int
	last := links.Last()
	if _, err := fmt.Sscanf(last.Text(), "page %d", &n); err != nil || n < 12 || last.AttrOr("href", "") != fmt.Sprintf("/documents/%s/original#page=%d", id, n) {
		t.Errorf("last passage: %q -> %q, want page 12 or 13 and its #page", last.Text(), last.AttrOr("href", ""))
	}
}
