package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestUploadsBeyondAThousandAreAllProcessed: while both ingest workers are held on the model, 1,030 files
// are uploaded through the page, more than the 1,024 jobs the ingest queue once held (the last ones were
// refused, stored anyway and never processed). Every file is accepted, and every one stored is processed
// once the model answers, without a restart. The fillers fail to parse, which is the cheapest job.
func TestUploadsBeyondAThousandAreAllProcessed(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(release)
	b.app.Model.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		if req.IsEmbed() {
			<-gate
		}
		return llmtest.Reply{}, false
	})
	const n = 1030
	files := make([]file, n)
	good := map[string]bool{}
	for i := range files {
		name := fmt.Sprintf("note-%04d.txt", i)
		if i < 2 || i >= n-10 { // the first two hold the two workers; the last ten queue behind every filler
			files[i] = file{name, fmt.Appendf(nil, "Note %d: Lena Vogt met Arjun Mehta in Munich.\n", i)}
			good[name] = true
			continue
		}
		files[i] = file{name, fmt.Appendf(nil, "\x00\x01\x02 binary %d", i)}
	}
	resp, doc := b.upload(files, true)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: status %d", resp.StatusCode)
	}
	items := doc.Find("#upload-result-list li")
	if items.Length() != n {
		t.Fatalf("results: %d, want %d", items.Length(), n)
	}
	refused, firstReason := 0, ""
	items.Each(func(_ int, li *goquery.Selection) {
		if !li.HasClass("ok") {
			if refused++; firstReason == "" {
				firstReason = li.Text()
			}
		}
	})
	if refused > 0 {
		t.Errorf("%d of %d files refused, the first: %q", refused, n, firstReason)
	}
	release()
	for _, f := range files[n-10:] { // the last in the queue: once they are finished, so is every other
		waitFinished(t, b.app, f, time.Minute)
	}
	docs, err := b.app.Store.Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != n {
		t.Fatalf("%d documents stored, want %d", len(docs), n)
	}
	for _, d := range docs {
		want := graphrag.StatusFailed
		if good[d.Name] {
			want = graphrag.StatusDone
		}
		if d.Status != want {
			t.Errorf("%s: %s, want %s", d.Name, d.Status, want)
		}
	}
}

// waitFinished waits until the document of f is done or failed.
func waitFinished(t *testing.T, app *webtest.App, f file, within time.Duration) {
	t.Helper()
	id := graphrag.DocumentID(graphrag.ContentHash(f.body))
	deadline := time.Now().Add(within)
	for {
		d, err := app.Store.Document(context.Background(), id)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if d.Status.Finished() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still %s after %s", f.name, d.Status, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
