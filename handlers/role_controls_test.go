package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// writeForms lists the forms of doc that post to a route a reader may not use: upload (files, a page, the
// samples), delete, retry and replace of documents, rename and delete of conversations.
func writeForms(doc *goquery.Selection) []string {
	var out []string
	doc.Find("form").Each(func(_ int, f *goquery.Selection) {
		for _, attr := range []string{"action", "hx-post"} {
			to, ok := f.Attr(attr)
			path, _, _ := strings.Cut(to, "?")
			if !ok || path == "/chat/ask" || strings.HasPrefix(path, "/chat/stop/") || path == "/logout" {
				continue
			}
			if strings.HasPrefix(path, "/documents") || strings.HasPrefix(path, "/chat/conversations/") {
				out = append(out, attr+"="+to)
				return
			}
		}
	})
	return out
}

// A page offers only the controls its viewer's role can use: a reader's documents list, document page, the
// live rows the list receives and the chat page hold no form to upload, delete, retry, replace, rename or
// delete; an editor's hold each of them.
func TestPagesOfferOnlyTheControlsOfTheRole(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{Demo: true})
	rea, ed := signIn(t, app, srv, "rea"), signIn(t, app, srv, "ed")
	ctx := context.Background()
	docs, err := app.Store.Documents(ctx)
	if err != nil || len(docs) == 0 {
		t.Fatalf("demo documents: %d, %v", len(docs), err)
	}
	id := docs[0].ID
	chunks, err := app.Store.DocumentChunks(ctx, id)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("DocumentChunks = %d, %v", len(chunks), err)
	}
	if err := app.Store.MarkChunkFailed(ctx, chunks[0].ID, "entity extraction failed: invalid JSON"); err != nil {
		t.Fatal(err) // the document can be retried: its Retry buttons are shown to an editor
	}
	for _, b := range []*browser{rea, ed} {
		if resp, _ := b.post("/chat/ask", url.Values{"question": {"Who founded Nexa AI?"}}, false); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("ask: %d", resp.StatusCode)
		}
	}

	pages := []struct {
		name, path string
		editor     []string // what an editor's page holds
	}{
		{"documents", "/documents", []string{"form#upload", "form#add-page", `form[hx-post="/documents/` + id + `/delete"]`,
			`form[hx-post="/documents/` + id + `/retry"]`}},
		{"document", "/documents/" + id, []string{"form#replace", `form[action="/documents/` + id + `/retry"]`}},
		{"chat", "/", []string{`form[action$="/rename"]`, `form[hx-post$="/delete"]`}},
	}
	for _, p := range pages {
		resp, page := rea.get(p.path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("reader GET %s: %d", p.path, resp.StatusCode)
		}
		if forms := writeForms(page.Selection); len(forms) != 0 {
			t.Errorf("the reader's %s page holds forms a reader may not use: %v", p.name, forms)
		}
		if page.Find(`input[type="file"]`).Length() != 0 {
			t.Errorf("the reader's %s page holds a file input", p.name)
		}
		resp, page = ed.get(p.path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("editor GET %s: %d", p.path, resp.StatusCode)
		}
		for _, sel := range p.editor {
			if page.Find(sel).Length() == 0 {
				t.Errorf("the editor's %s page has no %s", p.name, sel)
			}
		}
	}
	// Each reader still sees its conversation listed, and the documents.
	if _, page := rea.get("/"); page.Find("#conversations a").Length() != 1 {
		t.Errorf("the reader's chat page lists %d conversations, want its own", page.Find("#conversations a").Length())
	}
	if _, page := rea.get("/documents"); page.Find("#documents tbody tr").Length() != len(docs) {
		t.Errorf("the reader's documents page lists %d documents, want %d", page.Find("#documents tbody tr").Length(), len(docs))
	}

	// The rows the list receives live (over SSE) follow the same rule.
	rows := func(b *browser) string {
		resp, err := b.client.Get(b.srv.URL + "/documents/events")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var html strings.Builder
		for _, ev := range readSSE(t, resp.Body, "idle") {
			html.WriteString(ev.data)
		}
		return "<table><tbody>" + html.String() + "</tbody></table>"
	}
	if forms := writeForms(fragment(t, rows(rea)).Selection); len(forms) != 0 {
		t.Errorf("the reader's live rows hold forms a reader may not use: %v", forms)
	}
	if forms := writeForms(fragment(t, rows(ed)).Selection); len(forms) < len(docs)+1 {
		t.Errorf("the editor's live rows hold %d forms, want a delete per document and the retry", len(forms))
	}
}

// On an empty store a reader is not offered the sample documents (an editor is), and is told who adds them.
func TestEmptyDocumentsPageOfTheRole(t *testing.T) {
	app, srv := teamApp(t, webtest.Options{})
	rea, ed := signIn(t, app, srv, "rea"), signIn(t, app, srv, "ed")
	_, page := rea.get("/documents")
	if forms := writeForms(page.Selection); len(forms) != 0 || !strings.Contains(page.Find("#no-docs").Text(), "An editor") {
		t.Errorf("the reader's empty documents page: forms %v, text %q", forms, page.Find("#no-docs").Text())
	}
	_, page = ed.get("/documents")
	if page.Find("form#samples").Length() != 1 || page.Find("form#upload").Length() != 1 {
		t.Error("the editor's empty documents page does not offer the upload and the samples")
	}
}
