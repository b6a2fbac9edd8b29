package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// labelOverlaps is a script that lists the pairs of drawn names whose labels overlap on the page: the
// rendered bounding boxes of every visible node's label that is shown, compared pairwise, in pixels.
const labelOverlaps = `(function () {
  var cy = window.hopwiseGraph, boxes = [];
  cy.nodes(":visible").forEach(function (n) {
    if (!n.data("name") || n.style("label") === "" || +n.style("text-opacity") === 0) return;
    var b = n.renderedBoundingBox({ includeNodes: false, includeEdges: false, includeLabels: true });
    if (b.w > 0 && b.h > 0) boxes.push({ name: n.data("name"), b: b });
  });
  var out = [];
  for (var i = 0; i < boxes.length; i++) for (var j = i + 1; j < boxes.length; j++) {
    var a = boxes[i].b, c = boxes[j].b;
    if (a.x1 < c.x2 - 1 && c.x1 < a.x2 - 1 && a.y1 < c.y2 - 1 && c.y1 < a.y2 - 1) out.push(boxes[i].name + " / " + boxes[j].name);
  }
  return { labelled: boxes.length, overlaps: out };
})()`

type labelReport struct {
	Labelled int      `json:"labelled"`
	Overlaps []string `json:"overlaps"`
}

// checkLabels fails when drawn labels overlap, or when too few names are labelled to read the drawing.
func (s *session) checkLabels(where string, atLeast int) labelReport {
	s.t.Helper()
	s.waitFor("labels placed in "+where, "document.querySelector('#graph-canvas').dataset.labelled !== undefined", 5*time.Second)
	r := eval[labelReport](s, labelOverlaps)
	if len(r.Overlaps) > 0 {
		s.t.Errorf("%s: %d pairs of labels overlap, such as %v", where, len(r.Overlaps), r.Overlaps[:min(5, len(r.Overlaps))])
	}
	if r.Labelled < atLeast {
		s.t.Errorf("%s: %d names labelled, want at least %d", where, r.Labelled, atLeast)
	}
	return r
}

// hubDocument is a table of 50 cities with their distance from Munich, which the scripted extraction
// reads as 50 facts around Munich, each from the table passage.
func hubDocument() string {
	var b strings.Builder
	b.WriteString("# Distances from Munich\n\n| City | Distance from Munich |\n| --- | --- |\n")
	for i := range 50 {
		fmt.Fprintf(&b, "| %s | %d km |\n", cityName(i), 300+i*97)
	}
	return b.String()
}

// cityName is a made-up city name of varied length.
func cityName(i int) string {
	first := []string{"Alder", "Birch", "Cedar", "Dunmore", "Elmstead", "Fairhaven", "Glenrock", "Hollowbrook", "Ironbridge", "Juniper"}
	second := []string{"ton", "ford", "field", "haven", "moor"}
	return first[i%10] + second[i/10]
}

// TestGraphHubReadable: a hub of 50 neighbours is drawn with a layout for large neighbourhoods, the names
// whose labels are shown do not overlap, the others show theirs on hover, a first set of neighbours comes
// with "show more" for the rest, and "Where it was found" renders the table passage as a table. With a
// MuSiQue bench store (HOPWISE_E2E_BENCH_STORE, a hopwise.db that `hopwise eval --bench` built; copied,
// never opened in place) TestGraphBenchHubReadable checks its largest hub the same way.
func TestGraphHubReadable(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("needs chromium at %s: %v", chromium, err)
	}
	app := webtest.New(t, webtest.Options{})
	ctx := context.Background()
	doc, _, err := app.Ingester.Submit(ctx, "distances.md", strings.NewReader(hubDocument()))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := app.Store.Document(ctx, doc.ID)
		if err == nil && d.Status == graphrag.StatusDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hub document was not ingested: %+v %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	base := startServer(t, app)
	s := newSession(t, base)

	s.do("open the hub", chromedp.Navigate(base+"/graph?entity=munich"))
	s.waitFor("the hub drawn", "document.querySelector('#graph-canvas') && +document.querySelector('#graph-canvas').dataset.nodes > 10", 15*time.Second)
	first := eval[int](s, "+document.querySelector('#graph-canvas').dataset.nodes")
	if first >= 51 {
		t.Errorf("%d nodes drawn at first: want a first set of the 50 neighbours, the rest behind 'show more'", first)
	}
	s.checkLabels("hub, first set", 10)
	s.screenshot("40-graph-hub-50-neighbours")
	s.waitFor("show more", "document.querySelector('#graph-more') && !document.querySelector('#graph-more').hidden", 5*time.Second)
	s.do("show more", chromedp.Click(chromedp.CSS("#graph-more")))
	s.waitFor("every neighbour drawn", "+document.querySelector('#graph-canvas').dataset.nodes === 51", 15*time.Second)
	r := s.checkLabels("hub, all neighbours", 10)
	t.Logf("hub of 50: %d of 51 names labelled", r.Labelled)
	s.screenshot("41-graph-hub-all-neighbours")
	if r.Labelled < 51 {
		// A name without its label shows it while the pointer is on it.
		hidden := eval[string](s, `(function () { var n = hopwiseGraph.nodes(":visible").filter(function (n) { return n.style("label") === ""; })[0];
			if (!n) return ""; n.emit("mouseover"); return n.style("label") === n.data("name") ? "" : n.data("name"); })()`)
		if hidden != "" {
			t.Errorf("hovering %q does not show its label", hidden)
		}
	}
	s.checkPage("hub")

	// "Where it was found" renders the table passage as the chat renders Markdown: a table, not pipes.
	eval[bool](s, "hopwiseGraph.getElementById('munich').emit('tap') && true")
	s.waitFor("Munich's details", "document.querySelector('#graph-detail h2') && document.querySelector('#graph-detail h2').innerText === 'Munich'", 5*time.Second)
	s.waitFor("the table passage", "!!document.querySelector('#graph-detail blockquote table')", 5*time.Second)
	if rows := eval[int](s, "document.querySelectorAll('#graph-detail blockquote table tr').length"); rows < 3 {
		t.Errorf("the passage's table has %d rows", rows)
	}
	if raw := eval[bool](s, "document.querySelector('#graph-detail blockquote').innerText.indexOf('| ---') >= 0"); raw {
		t.Error("the passage still shows Markdown pipes")
	}
	s.do("scroll to the details", chromedp.ScrollIntoView(chromedp.CSS("#graph-detail")))
	s.screenshot("42-graph-detail-table-passage")
	s.checkPage("detail")
}

// TestGraphBenchHubReadable checks a hub of a MuSiQue bench store the same way, when one is given
// (HOPWISE_E2E_BENCH_STORE; HOPWISE_E2E_BENCH_HUB names the hub, "united states" by default).
func TestGraphBenchHubReadable(t *testing.T) {
	src := os.Getenv("HOPWISE_E2E_BENCH_STORE")
	if src == "" {
		t.Skip("HOPWISE_E2E_BENCH_STORE is not set: give it a hopwise.db built by `hopwise eval --bench ../shared/bench/musique` to check its hub")
	}
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("needs chromium at %s: %v", chromium, err)
	}
	copyTo := filepath.Join(t.TempDir(), "hopwise.db")
	body, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyTo, body, 0o644); err != nil {
		t.Fatal(err)
	}
	app := webtest.New(t, webtest.Options{StoreFrom: copyTo})
	base := startServer(t, app)
	s := newSession(t, base)
	hub := os.Getenv("HOPWISE_E2E_BENCH_HUB")
	if hub == "" {
		hub = "united states"
	}
	s.do("open the bench hub", chromedp.Navigate(base+"/graph?entity="+strings.ReplaceAll(hub, " ", "+")))
	s.waitFor("the bench hub drawn", "document.querySelector('#graph-canvas') && +document.querySelector('#graph-canvas').dataset.nodes > 10", 20*time.Second)
	s.checkLabels("bench hub", 10)
	s.screenshot("43-graph-bench-hub")
	if eval[bool](s, "!!document.querySelector('#graph-more') && !document.querySelector('#graph-more').hidden") {
		s.do("bench show more", chromedp.Click(chromedp.CSS("#graph-more")))
		time.Sleep(2 * time.Second)
		r := s.checkLabels("bench hub, more", 10)
		s.screenshot("44-graph-bench-hub-more")
		t.Logf("bench hub after show more: %d names labelled", r.Labelled)
	}
	s.checkPage("bench hub")
}
