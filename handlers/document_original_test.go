package handlers_test

import (
	"bytes"
	"context"
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
