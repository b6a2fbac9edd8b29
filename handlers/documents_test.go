package handlers_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers"
	"github.com/hopwise/hopwise/handlers/webtest"
)

func TestUploadReportsEachFileAndOneBadFileFailsAlone(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	files := []file{
		{"policy.md", []byte("# Policy\n\nEmployees of Nexa AI may work from Lisbon.\n")},
		{"empty.txt", nil},
		{"tool.exe", []byte("MZ\x00\x01")},
		{"binary.txt", []byte("\x00\x01\x02\x03\xff\xfe binary")},
	}
	resp, doc := b.upload(files, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	items := doc.Find("#upload-result-list li")
	if items.Length() != len(files) {
		t.Fatalf("results: %d, want %d: %s", items.Length(), len(files), items.Text())
	}
	want := map[string]string{"policy.md": "ok", "empty.txt": "bad", "tool.exe": "bad", "binary.txt": "ok"}
	for i := range files {
		li := items.Eq(i)
		name := li.Find("strong").Text()
		if !li.HasClass(want[name]) {
			t.Errorf("%s: class %q, want %q (%s)", name, li.AttrOr("class", ""), want[name], li.Text())
		}
	}
	if doc.Find("#doc-live[hx-swap-oob]").Length() != 1 {
		t.Error("the list is not refreshed out of band")
	}
	docs := b.app.WaitDone(t, 20*time.Second)
	states := map[string]string{}
	for _, d := range docs {
		states[d.Name] = string(d.Status)
	}
	if states["policy.md"] != "done" || states["binary.txt"] != "failed" || len(docs) != 2 {
		t.Fatalf("documents: %v", states)
	}
	_, page := b.get("/documents")
	row := page.Find("tr[data-state=failed]")
	if !strings.Contains(row.Find(".error-reason").Text(), "binary") {
		t.Errorf("failed row does not say why: %q", row.Text())
	}
	if page.Find("#doc-live[sse-connect]").Length() != 0 {
		t.Error("the list still listens for progress when every document is finished")
	}

	// The same bytes again: said so, nothing duplicated.
	_, doc = b.upload(files[:1], true)
	li := doc.Find("#upload-result-list li")
	if !li.HasClass("same") || !strings.Contains(li.Text(), "Already uploaded") {
		t.Errorf("re-upload: %q (class %q)", li.Text(), li.AttrOr("class", ""))
	}
	if got, _ := b.app.Store.Documents(context.Background()); len(got) != 2 {
		t.Errorf("documents after re-upload: %d, want 2", len(got))
	}
}

func TestUploadWithoutJavaScriptRendersThePage(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	resp, doc := b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria.")}}, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if doc.Find("h1").Text() != "Documents" || doc.Find("#upload-result-list li.ok").Length() != 1 {
		t.Errorf("page: %q", doc.Find("main").Text())
	}
	if doc.Find("#documents tbody tr").Length() != 1 {
		t.Error("the new document is not listed")
	}
}

// Row 1 of RELIABILITY.md: over the limit is 413 before any parsing, per file and per request, whatever
// the request says about its length.
func TestUploadOverTheLimitIs413(t *testing.T) {
	limits := handlers.Limits{MaxUploadBytes: 1000, MaxRequestBytes: 4000}
	b := newBrowser(t, webtest.Options{Limits: limits})
	oneOverFile, overType := multipartBody(t, []file{{"big.txt", []byte(strings.Repeat("a", 1001))}})
	fitting, fitType := multipartBody(t, []file{{"ok.txt", []byte(strings.Repeat("a", 900))}})
	overRequest := strings.Repeat("x", 4001)
	tests := []struct {
		name          string
		body          string
		ctype         string
		contentLength int64 // -1: chunked; 0: the true length
		want          int
	}{
		{"file one byte over the per-file limit", oneOverFile.String(), overType, 0, http.StatusRequestEntityTooLarge},
		{"request one byte over, declared", overRequest, fitType, 0, http.StatusRequestEntityTooLarge},
		{"request over, Content-Length spoofed small", overRequest, fitType, 100, http.StatusRequestEntityTooLarge},
		{"request over, chunked", overRequest, fitType, -1, http.StatusRequestEntityTooLarge},
		{"within both limits", fitting.String(), fitType, 0, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "/api/documents", strings.NewReader(tt.body))
			req.Host = "127.0.0.1"
			req.Header.Set("Content-Type", tt.ctype)
			if tt.contentLength != 0 {
				req.ContentLength = tt.contentLength
			}
			b.app.Handler.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.want, rec.Body.String())
			}
		})
	}
	docs, _ := b.app.Store.Documents(context.Background())
	if len(docs) != 1 || docs[0].Name != "ok.txt" {
		t.Errorf("stored documents: %+v, want only ok.txt", docs)
	}
}

func TestDocumentEventsStreamProgressUntilIdle(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	// The stream is opened while a document is queued, as the page does after an upload.
	body, ctype := multipartBody(t, demoFiles(t)[:2])
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/api/documents", body)
	req.Header.Set("Content-Type", ctype)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %v %v", err, resp)
	}
	resp, err := b.client.Get(b.srv.URL + "/documents/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("content type %q", ct)
	}
	events := readSSE(t, resp.Body, "idle")
	if len(events) == 0 || events[len(events)-1].name != "idle" {
		t.Fatalf("stream did not end with idle: %+v", events)
	}
	ready := map[string]bool{}
	for _, ev := range events {
		if strings.HasPrefix(ev.name, "doc-") && strings.Contains(ev.data, "Ready") {
			row := fragment(t, "<table>"+ev.data+"</table>").Find("tr")
			if row.AttrOr("id", "") != ev.name || row.AttrOr("data-state", "") != "done" {
				t.Errorf("row %s: %s", ev.name, ev.data)
			}
			ready[ev.name] = true
		}
	}
	if len(ready) != 2 {
		t.Errorf("rows that became ready: %d, want 2", len(ready))
	}

	// A page that missed the end (rendered late, or its stream dropped) is brought up to date when its
	// stream opens, and the stream closes at once.
	resp, err = b.client.Get(b.srv.URL + "/documents/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events = readSSE(t, resp.Body, "idle")
	if len(events) != 3 || !strings.Contains(events[0].data, "Ready") || events[2].name != "idle" {
		t.Errorf("late stream: %+v", events)
	}
}

func TestDeleteAsksFirstWithoutJavaScript(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria.")}}, true)
	docs := b.app.WaitDone(t, 10*time.Second)
	id := docs[0].ID

	resp, doc := b.post("/documents/"+id+"/delete", url.Values{}, false)
	if resp.StatusCode != http.StatusOK || !strings.Contains(doc.Find("h1").Text(), "notes.txt") {
		t.Fatalf("confirmation page: %d %q", resp.StatusCode, doc.Find("h1").Text())
	}
	if got, _ := b.app.Store.Documents(context.Background()); len(got) != 1 {
		t.Fatal("deleted before confirmation")
	}
	resp, _ = b.post("/documents/"+id+"/delete", url.Values{"confirmed": {"yes"}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got, _ := b.app.Store.Documents(context.Background()); len(got) != 0 {
		t.Fatal("not deleted")
	}
	resp, _ = b.get("/documents/" + id)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleted document page: %d", resp.StatusCode)
	}
}

func TestDocumentPageShowsPassagesInOrderWithAnchors(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	docs, _ := b.app.Store.Documents(context.Background())
	var id string
	for _, d := range docs {
		if d.Name == "munich-city-distances.md" {
			id = d.ID
		}
	}
	_, doc := b.get("/documents/" + id)
	chunks := doc.Find("#chunks li.chunk")
	if chunks.Length() == 0 {
		t.Fatal("no passages")
	}
	first := chunks.First()
	if first.AttrOr("id", "") != "chunk-"+id+"-0000" || !strings.Contains(first.Text(), "Passage 1") {
		t.Errorf("first passage: id %q text %q", first.AttrOr("id", ""), first.Find(".section").Text())
	}
	if !strings.Contains(doc.Find("#chunks").Text(), "5,921 km") {
		t.Error("the distance table is not shown")
	}
}

// Shutting down ends the progress streams at once, so the server waits only for answers being written.
func TestShutdownEndsProgressStreams(t *testing.T) {
	b := newBrowser(t, webtest.Options{ExtractDelay: 3 * time.Second})
	b.upload(demoFiles(t)[:1], true)
	resp, err := b.client.Get(b.srv.URL + "/documents/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(100 * time.Millisecond) // the stream is listening
	start := time.Now()
	b.app.Close()
	events := readSSE(t, resp.Body, "idle")
	if len(events) == 0 || events[len(events)-1].name != "idle" {
		t.Fatalf("stream did not end with idle: %+v", events)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("the stream took %s to end", time.Since(start))
	}
	docs, _ := b.app.Store.Documents(context.Background())
	if docs[0].Status.Finished() {
		t.Fatal("the document finished before the shutdown; the test proves nothing")
	}
}
