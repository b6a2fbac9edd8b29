package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/web"

	"github.com/chromedp/chromedp"
)

// TestBrowserRowsTakeUpdatesBackToBack: two progress events for one document's row that reach the page
// together (the stream's opening rows and the job's end, under load) both land. Each update replaces the
// row, and the replacement must be listening before the next event is dispatched: otherwise the last
// update (the done row, or the empty row of a replaced version) is lost and the row says "reading" or
// shows the old version forever, which is how CI once saw a replaced document stay in the list.
func TestBrowserRowsTakeUpdatesBackToBack(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("end-to-end tests need chromium at %s (apt-get install -y chromium, or set HOPWISE_CHROMIUM): %v", chromium, err)
	}
	app := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	// Two documents being read by no job of this app: the page lists them as working and opens the
	// progress stream, which the test writes itself.
	var docs []graphrag.Document
	for i, name := range []string{"finishing.md", "replaced.md"} {
		d, _, err := app.Store.PutDocument(ctx, graphrag.Document{
			ID: fmt.Sprintf("drows%d", i), Name: name, Format: "markdown", Size: 10,
			Status: graphrag.StatusExtracting, CreatedAt: time.Now(), UpdatedAt: time.Now(),
		}, []byte("# "+name+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	row := func(d graphrag.Document, state graphrag.DocStatus, step string) string {
		var b bytes.Buffer
		r := web.DocumentRow{ID: d.ID, Name: d.Name, Title: d.Name, State: string(state), Step: step, Size: "10 B"}
		if err := web.DocumentRowView(r, "").Render(ctx, &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	release := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/documents/events" {
			app.Handler.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		// Every event in one write: the browser dispatches them one after the other, within a millisecond.
		var b bytes.Buffer
		for _, ev := range []struct{ name, html string }{
			{"doc-" + docs[0].ID, row(docs[0], graphrag.StatusExtracting, "Finding names and facts (1 of 1)")},
			{"doc-" + docs[0].ID, row(docs[0], graphrag.StatusDone, "Ready")},
			{"doc-" + docs[1].ID, row(docs[1], graphrag.StatusExtracting, "Finding names and facts (1 of 1)")},
			{"doc-" + docs[1].ID, ""},
		} {
			fmt.Fprintf(&b, "event: %s\n", ev.name)
			for _, line := range bytes.Split([]byte(ev.html), []byte("\n")) {
				fmt.Fprintf(&b, "data: %s\n", line)
			}
			b.WriteString("\n")
		}
		w.Write(b.Bytes())
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	served := *app
	served.Handler = handler
	s := newSession(t, startServer(t, &served))
	s.do("open documents", chromedp.Navigate(s.base+"/documents"), chromedp.WaitVisible(chromedp.CSS("#documents")))
	s.waitFor("both rows listening", fmt.Sprintf("document.querySelectorAll('#documents tr[sse-swap]').length === 2 && !!document.querySelector('#doc-%s')", docs[1].ID), 10*time.Second)
	time.Sleep(300 * time.Millisecond) // the stream is open
	close(release)
	s.waitFor("the finished row done and the replaced row gone", fmt.Sprintf(
		"!!document.querySelector('#doc-%s[data-state=done]') && !document.querySelector('#doc-%s')", docs[0].ID, docs[1].ID), 10*time.Second)
	s.checkPage("rows updated back to back")
}
