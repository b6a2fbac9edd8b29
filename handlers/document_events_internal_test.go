package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
)

// progressOnly is an ingester whose progress the test sends by hand; nothing else of it is used.
type progressOnly struct {
	Ingester
	ch chan graphrag.Progress
}

func (p progressOnly) Subscribe() (<-chan graphrag.Progress, func()) { return p.ch, func() {} }

// Two documents can finish within one progress tick while the snapshot of only one has reached the
// stream: the stream must not end before the row of the other says it is ready, or that row stays
// "reading" on the page for good.
func TestDocumentEventsSendEveryFinalRowBeforeIdle(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 4, EmbedModel: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var ids []string
	for _, name := range []string{"a", "b"} {
		doc, _, err := store.PutDocument(ctx, graphrag.Document{ID: name, Name: name + ".txt", Status: graphrag.StatusExtracting}, []byte(name))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, doc.ID)
	}
	progress := progressOnly{ch: make(chan graphrag.Progress, 4)}
	s := &server{Deps: Deps{Store: store, Ingester: progress}}

	e := echo.New()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/documents/events", nil)
	done := make(chan error, 1)
	go func() { done <- s.documentEvents(e.NewContext(req, rec)) }()

	time.Sleep(50 * time.Millisecond) // the stream has sent the opening rows and waits for progress
	for _, id := range ids {
		if err := store.SetDocumentStatus(ctx, id, graphrag.StatusDone, "", graphrag.DocumentMeta{}); err != nil {
			t.Fatal(err)
		}
	}
	progress.ch <- graphrag.Progress{DocID: ids[0]}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream did not end")
	}
	// The data of the last event of each name, in the order the events came.
	last, order := map[string]string{}, []string{}
	for _, block := range strings.Split(rec.Body.String(), "\n\n") {
		var name, data string
		for _, line := range strings.Split(block, "\n") {
			if v, ok := strings.CutPrefix(line, "event: "); ok {
				name = v
			} else if v, ok := strings.CutPrefix(line, "data:"); ok {
				data += v
			}
		}
		if name != "" {
			last[name], order = data, append(order, name)
		}
	}
	if len(order) == 0 || order[len(order)-1] != "idle" {
		t.Fatalf("the stream did not end with idle: %q", order)
	}
	for _, id := range ids {
		if !strings.Contains(last["doc-"+id], "Ready") {
			t.Errorf("the last row of %s is not ready: %q (events %q)", id, last["doc-"+id], order)
		}
	}
}
