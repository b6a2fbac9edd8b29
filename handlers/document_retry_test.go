package handlers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
)

func TestRetryButtonRetriesFailedPassages(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	ctx := context.Background()
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria. Lufthansa has a hub at Munich Airport.")}}, true)
	id := b.app.WaitDone(t, 10*time.Second)[0].ID
	retry := "/documents/" + id + "/retry"

	_, page := b.get("/documents")
	if n := page.Find(`form[hx-post="` + retry + `"]`).Length(); n != 0 {
		t.Fatalf("a document with nothing failed shows %d retry buttons", n)
	}
	if resp, _ := b.post(retry, url.Values{}, true); resp.StatusCode != http.StatusConflict {
		t.Errorf("retry with nothing failed: %d, want 409", resp.StatusCode)
	}

	chunks, err := b.app.Store.DocumentChunks(ctx, id)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("DocumentChunks = %d, %v", len(chunks), err)
	}
	if err := b.app.Store.MarkChunkFailed(ctx, chunks[0].ID, "entity extraction failed: invalid JSON"); err != nil {
		t.Fatal(err)
	}
	_, page = b.get("/documents")
	if page.Find(`form[hx-post="`+retry+`"] button`).Text() != "Retry" {
		t.Fatalf("no retry button on the row of a document with a failed passage: %s", page.Find("#doc-"+id).Text())
	}
	_, docPage := b.get("/documents/" + id)
	if docPage.Find(`form[action="`+retry+`"] button`).Length() != 1 {
		t.Errorf("no retry button on the document's page")
	}

	resp, frag := b.post(retry, url.Values{}, true)
	if resp.StatusCode != http.StatusOK || !strings.Contains(frag.Find("#upload-result-list").Text(), "Trying again") {
		t.Fatalf("htmx retry: %d %q", resp.StatusCode, frag.Find("#upload-result-list").Text())
	}
	// The list follows the job's progress, unless the job (one passage with the scripted model) ended
	// before the list was read: then its row already says so.
	live := frag.Find(`#doc-live[hx-swap-oob][sse-connect]`).Length() == 1
	if row := frag.Find(`#doc-live[hx-swap-oob] #doc-` + id); !live && (row.AttrOr("data-state", "") != "done" || strings.Contains(row.Text(), "could not be searched")) {
		t.Errorf("the refreshed list neither follows the job's progress nor shows it done: %q", row.Text())
	}
	b.app.WaitDone(t, 10*time.Second)
	doc, err := b.app.Store.Document(ctx, id)
	if err != nil || doc.FailedChunks != 0 || doc.ChunksExtracted != doc.Chunks {
		t.Fatalf("after retry: %+v, %v; want every passage extracted", doc, err)
	}

	if resp, _ := b.post("/documents/dmissing/retry", url.Values{}, false); resp.StatusCode != http.StatusNotFound {
		t.Errorf("retry of an unknown document: %d, want 404", resp.StatusCode)
	}
}

func TestAPIV1RetryByName(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	ctx := context.Background()
	b.upload([]file{{"notes.txt", []byte("Munich is in Bavaria. Lufthansa has a hub at Munich Airport.")}}, true)
	id := b.app.WaitDone(t, 10*time.Second)[0].ID
	retry := b.srv.URL + "/api/v1/documents/notes.txt/retry"
	if resp := send(t, http.MethodPost, retry, nil); resp.StatusCode != http.StatusConflict {
		t.Errorf("API retry with nothing failed: %d, want 409", resp.StatusCode)
	}
	chunks, err := b.app.Store.DocumentChunks(ctx, id)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("DocumentChunks = %d, %v", len(chunks), err)
	}
	if err := b.app.Store.MarkChunkFailed(ctx, chunks[0].ID, "entity extraction failed: invalid JSON"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(retry, "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct{ ID, Status string }
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusAccepted ||
		got.ID != id || got.Status != "queued" {
		t.Fatalf("API retry: %d %+v %v; want 202 with the document queued", resp.StatusCode, got, err)
	}
	b.app.WaitDone(t, 10*time.Second)
	if doc, err := b.app.Store.Document(ctx, id); err != nil || doc.FailedChunks != 0 {
		t.Errorf("after the API retry: %+v, %v; want no failed passage", doc, err)
	}
	if resp := send(t, http.MethodPost, b.srv.URL+"/api/v1/documents/missing.txt/retry", nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("API retry of an unknown name: %d, want 404", resp.StatusCode)
	}
}
