package handlers_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// Issue 21, item 8: a NUL byte in one file name failed the whole upload; a right-to-left override was
// shown as is ("evil<RLO>txt.md" reads "evildm.txt"). The NUL-named file fails alone, the others are
// taken, and no name reaches the page or the store with the override.
func TestBadFileNamesFailAlone(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	for _, htmx := range []bool{true, false} {
		// Each round its own names: a file with a stored document's name would be its new version.
		round := map[bool]string{true: "a", false: "b"}[htmx]
		resp, doc := b.upload([]file{
			{round + "-first.txt", []byte("Munich is in Bavaria. " + round)},
			{"evil\x00.txt", []byte("hidden")},
			{round + "-evil\u202etxt.md", []byte("# Report\n\nDelhi is in India. " + round)},
			{round + "-last.txt", []byte("Salzburg is near Munich. " + round)},
		}, htmx)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("htmx %v: status %d: %s", htmx, resp.StatusCode, doc.Text())
		}
		items := doc.Find("#upload-result-list li")
		if items.Length() != 4 {
			t.Fatalf("htmx %v: %d results: %q", htmx, items.Length(), items.Text())
		}
		kinds := []string{"ok", "bad", "ok", "ok"}
		for i, k := range kinds {
			if !items.Eq(i).HasClass(k) {
				t.Errorf("htmx %v: result %d %q is not %s", htmx, i, items.Eq(i).Text(), k)
			}
		}
		if got := items.Eq(1).Text(); !strings.Contains(got, "evil.txt") || !strings.Contains(got, "not allowed") {
			t.Errorf("the NUL-named file's result: %q", got)
		}
		if strings.ContainsRune(doc.Text(), '\u202e') {
			t.Error("the page shows a right-to-left override")
		}
	}
	docs := b.app.WaitDone(t, 20*time.Second)
	if len(docs) != 6 {
		t.Errorf("%d documents stored, want 6", len(docs))
	}
	for _, d := range docs {
		if strings.ContainsAny(d.Name, "\u202e\x00") {
			t.Errorf("stored name %q", d.Name)
		}
	}
}

// A name stored before names were cleaned is shown without its override.
func TestStoredOverrideIsNotShown(t *testing.T) {
	b := newBrowser(t, webtest.Options{})
	now := time.Now()
	if _, _, err := b.app.Store.PutDocument(context.Background(), graphrag.Document{ID: "d1", Name: "evil\u202etxt.md", Status: graphrag.StatusDone, CreatedAt: now}, []byte("x")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/documents", "/documents/d1"} {
		_, doc := b.get(path)
		if strings.ContainsRune(doc.Text(), '\u202e') || !strings.Contains(doc.Text(), "eviltxt.md") {
			t.Errorf("%s shows %q", path, doc.Find("main").Text())
		}
	}
}
