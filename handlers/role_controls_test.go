package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// readerMayNot are the starts of the routes of forms a reader may not use: upload (files, a page, the
// samples), delete, retry and replace of documents, rename and delete of conversations, the graph's edits,
// topic summaries and the re-index.
var readerMayNot = []string{"/documents", "/chat/conversations/", "/graph/duplicates/", "/graph/edits/",
	"/graph/entities/edit", "/graph/communities/summaries", "/graph/communities/stop", "/status/reindex"}

// writeForms lists the forms of doc that post to a route starting with one of prefixes (readerMayNot by
// default).
func writeForms(doc *goquery.Selection, prefixes ...string) []string {
	if len(prefixes) == 0 {
		prefixes = readerMayNot
	}
	var out []string
	doc.Find("form").Each(func(_ int, f *goquery.Selection) {
		if strings.EqualFold(f.AttrOr("method", "get"), "get") && f.AttrOr("hx-post", "") == "" {
			return // a search form
		}
		for _, attr := range []string{"action", "hx-post"} {
			to, ok := f.Attr(attr)
			path, _, _ := strings.Cut(to, "?")
			for _, prefix := range prefixes {
				if ok && strings.HasPrefix(path, prefix) {
					out = append(out, attr+"="+to)
					return
				}
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

// The graph's pages and the Status page follow the same rule: a reader is offered no merge, "not the
// same", undo, rename, split or delete of an entity or a fact, no topic summaries and no re-index; an
// editor all but the re-index, which is an admin's.
func TestGraphAndStatusPagesOfferOnlyTheControlsOfTheRole(t *testing.T) {
	next := llmtest.New(t, llmtest.WithEmbedDim(32))
	app, srv := teamApp(t, webtest.Options{Demo: true, ReindexTo: next, ReindexDim: 32})
	waitCommunities(t, app, 0)
	pair := webtest.AddDuplicate(t, app)
	rea, ed, ana := signIn(t, app, srv, "rea"), signIn(t, app, srv, "ed"), signIn(t, app, srv, "ana")
	// one applied edit, so the history has an Undo for those who may
	if resp, _ := ed.post("/graph/entities/edit", url.Values{"key": {"lufthansa"}, "kind": {"alias"}, "name": {"LH"}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor adds a name: %d", resp.StatusCode)
	}
	pages := []struct {
		name, path string
		editor     []string // what an editor's page holds
	}{
		{"duplicates", "/graph/duplicates", []string{`form[action="/graph/duplicates/` + pair.ID + `/merge"]`,
			`form[action="/graph/duplicates/` + pair.ID + `/distinct"]`, `#edit-history form[action$="/undo"]`}},
		{"entity edit", "/graph/entities/edit?key=lufthansa", []string{"form#rename-form", "form#alias-form",
			"form#delete-entity-form", `#entity-relations form`, `#edit-history form[action$="/undo"]`}},
		{"entity detail", "/graph/entity?key=lufthansa", []string{"#fix-entity"}},
		{"topics", "/graph/communities", []string{"#summaries-estimate"}},
		{"topics estimate", "/graph/communities?estimate=1", []string{`form[action="/graph/communities/summaries"]`}},
	}
	for _, p := range pages {
		resp, page := rea.get(p.path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("reader GET %s: %d", p.path, resp.StatusCode)
		}
		if forms := writeForms(page.Selection); len(forms) != 0 {
			t.Errorf("the reader's %s page holds forms a reader may not use: %v", p.name, forms)
		}
		for _, sel := range p.editor {
			if page.Find(sel).Length() != 0 {
				t.Errorf("the reader's %s page has %s", p.name, sel)
			}
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
	reindex := `form[action="/status/reindex"]`
	for _, b := range []*browser{rea, ed} {
		if _, page := b.get("/status"); page.Find(reindex).Length() != 0 || page.Find("#reindex-needed").Length() != 1 {
			t.Errorf("a non-admin's status page: %d re-index forms, %d warnings; want none and the warning",
				page.Find(reindex).Length(), page.Find("#reindex-needed").Length())
		}
	}
	if _, page := ana.get("/status"); page.Find(reindex).Length() != 1 {
		t.Error("the admin's status page has no re-index form")
	}
}
