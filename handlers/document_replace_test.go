package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// TestUploadOfTheSameNameReplaces: a file uploaded under a stored document's name becomes its new
// version, and the document page's Replace form replaces that document whatever the new file's name.
func TestUploadOfTheSameNameReplaces(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	ctx := context.Background()
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria. Lufthansa has a hub at Munich Airport.")}}, true)
	old := b.app.WaitDone(t, 10*time.Second)[0]

	_, frag := b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria. Condor flies from Frankfurt.")}}, true)
	if msg := frag.Find("#upload-result-list").Text(); !strings.Contains(msg, "new version") {
		t.Errorf("upload of a new version: %q", msg)
	}
	docs := b.app.WaitDone(t, 10*time.Second)
	if len(docs) != 1 || docs[0].ID == old.ID || docs[0].Name != "notes.txt" {
		t.Fatalf("after uploading a new version: %+v; want only the new version", docs)
	}
	if found, err := b.app.Store.SearchText(ctx, "Lufthansa", 5); err != nil || len(found) != 0 {
		t.Errorf("the old version's text is still found: %d, %v", len(found), err)
	}

	_, page := b.get("/documents/" + docs[0].ID)
	action, _ := page.Find("form#replace").Attr("action")
	if !strings.HasPrefix(action, "/documents/"+docs[0].ID+"/replace") {
		t.Fatalf("document page: Replace form action %q", action)
	}
	body, ctype := multipartBody(t, []file{{"notes-2026.txt", []byte("Munich is in Bavaria. Eurowings flies from Cologne.")}})
	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+action, body)
	req.Header.Set("Content-Type", ctype)
	resp, _ := b.do(req)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Replace form without JavaScript: %d", resp.StatusCode)
	}
	docs = b.app.WaitDone(t, 10*time.Second)
	if len(docs) != 1 || docs[0].Name != "notes-2026.txt" {
		t.Fatalf("after Replace: %+v; want only notes-2026.txt", docs)
	}
	if found, err := b.app.Store.SearchText(ctx, "Eurowings Cologne", 5); err != nil || len(found) != 1 {
		t.Errorf("the replacement's text: %d results, %v; want 1", len(found), err)
	}

	body, ctype = multipartBody(t, []file{{"x.txt", []byte("text")}})
	req, _ = http.NewRequest(http.MethodPost, b.srv.URL+"/documents/dmissing/replace?"+action[strings.Index(action, "?")+1:], body)
	req.Header.Set("Content-Type", ctype)
	if resp, _ := b.do(req); resp.StatusCode != http.StatusNotFound {
		t.Errorf("Replace of an unknown document: %d, want 404", resp.StatusCode)
	}
}

// The progress stream removes a row the page showed as being replaced once that document is gone, even
// when the replace finished before the stream opened.
func TestEventsRemoveReplacedRowsAlreadyGone(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria.")}}, true)
	id := b.app.WaitDone(t, 10*time.Second)[0].ID
	resp, err := http.Get(b.srv.URL + "/documents/events?replaced=dgone," + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rows := map[string]string{}
	for _, ev := range readSSE(t, resp.Body, "idle") {
		rows[ev.name] = ev.data
	}
	if data, ok := rows["doc-dgone"]; !ok || data != "" {
		t.Errorf("event for the replaced document that is gone: sent %v, data %q; want an empty row", ok, data)
	}
	if !strings.Contains(rows["doc-"+id], "notes.txt") {
		t.Errorf("the stored document's row: %q", rows["doc-"+id])
	}
}
