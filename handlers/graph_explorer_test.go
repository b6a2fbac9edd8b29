package handlers_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// TestNeighbourhoodLimit: the drawing asks for a number of facts and hears whether there are more, best
// supported first; a limit that is not a positive number is refused.
func TestNeighbourhoodLimit(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	read := func(path string) (int, []string, bool) {
		t.Helper()
		resp, _ := b.get(path)
		var g struct {
			Edges []struct{ ID string }
			More  bool
		}
		if resp.StatusCode == http.StatusOK {
			if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
				t.Fatal(err)
			}
		}
		var ids []string
		for _, e := range g.Edges {
			ids = append(ids, e.ID)
		}
		return resp.StatusCode, ids, g.More
	}
	_, all, more := read("/api/graph/neighborhood?entity=munich&limit=400")
	if len(all) < 4 || more {
		t.Fatalf("Munich's facts: %d, more=%v: want several and no more", len(all), more)
	}
	_, two, more := read("/api/graph/neighborhood?entity=munich&limit=2")
	if len(two) != 2 || !more || two[0] != all[0] || two[1] != all[1] {
		t.Errorf("limit=2: %v more=%v, want the first two of %v and more", two, more, all[:2])
	}
	_, same, more := read("/api/graph/neighborhood?entity=munich&limit=" + strconv.Itoa(len(all)))
	if len(same) != len(all) || more {
		t.Errorf("limit=%d: %d facts, more=%v: want all and no more", len(all), len(same), more)
	}
	for _, bad := range []string{"0", "-3", "many"} {
		if code, _, _ := read("/api/graph/neighborhood?entity=munich&limit=" + bad); code != http.StatusBadRequest {
			t.Errorf("limit=%s: %d, want 400", bad, code)
		}
	}
}

// TestEntityPassagesRenderedAsMarkdown: "Where it was found" renders a table passage as a table, and the
// passage's text stays escaped and sanitised like the chat's.
func TestEntityPassagesRenderedAsMarkdown(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	_, doc := b.get("/graph/entity?key=delhi")
	quotes := doc.Find("blockquote.passage")
	if quotes.Length() == 0 {
		t.Fatalf("no passages in %q", doc.Text())
	}
	table := quotes.Find("table")
	if table.Length() == 0 || table.Find("tr").Length() < 2 || !strings.Contains(table.Text(), "Delhi") {
		t.Fatalf("no table with Delhi among the passages: %q", quotes.Text())
	}
	if strings.Contains(quotes.Text(), "| ---") || strings.Contains(quotes.Text(), "|---") {
		t.Errorf("Markdown pipes left in the passages: %q", quotes.Text())
	}
	if quotes.Find("script, img, iframe").Length() > 0 {
		t.Error("the passages hold active elements")
	}
}
