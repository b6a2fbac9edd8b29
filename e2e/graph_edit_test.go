package e2e

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// TestBrowserDuplicatesMergeUndoRename: the possible duplicates page lists a pair with its evidence; Merge
// merges it, Undo in the history puts it back; from an entity's detail in the explorer, "Rename or fix"
// leads to its page, where it is renamed. Screenshots 30 to 34.
func TestBrowserDuplicatesMergeUndoRename(t *testing.T) {
	app := webtest.New(t, webtest.Options{Demo: true})
	p := webtest.AddDuplicate(t, app)
	s := newSession(t, startServer(t, app))
	ctx := context.Background()
	entity := func(key string) (graphrag.Entity, bool) {
		es, err := app.Store.Entities(ctx, []string{key})
		if err != nil {
			t.Fatal(err)
		}
		if len(es) == 0 {
			return graphrag.Entity{}, false
		}
		return es[0], true
	}
	pair := "#pair-" + p.ID

	s.do("open the graph", chromedp.Navigate(s.base+"/graph"), chromedp.WaitVisible(chromedp.CSS("#duplicates-link")))
	s.do("open the duplicates", chromedp.Click(chromedp.CSS("#duplicates-link")), chromedp.WaitVisible(chromedp.CSS(pair)))
	s.waitFor("the pair's evidence", textOf(pair+" .evidence")+".includes('short form')", 5*time.Second)
	s.screenshot("30-duplicates")
	s.checkPage("duplicates")

	s.do("merge", chromedp.Click(chromedp.CSS(pair+" button.merge")), chromedp.WaitVisible(chromedp.CSS(".notice")))
	s.waitFor("the pair gone and the merge in the history", "!document.querySelector('"+pair+"') && "+textOf("#edit-history")+".includes('Merged')", 5*time.Second)
	s.screenshot("31-duplicates-merged")
	if _, ok := entity(p.Keys[1]); ok {
		t.Errorf("after the merge %q is still an entity", p.Keys[1])
	}
	if lh, _ := entity(p.Keys[0]); !slices.Contains(lh.Aliases, "Deutsche Lufthansa AG") {
		t.Errorf("Lufthansa's names after the merge: %q", lh.Aliases)
	}

	s.do("undo the merge", chromedp.Click(chromedp.CSS("#edit-history button.undo")))
	s.waitFor("undone", textOf(".notice")+".includes('Undone')", 5*time.Second)
	s.screenshot("32-merge-undone")
	if e, ok := entity(p.Keys[1]); !ok || e.Name != "Deutsche Lufthansa AG" {
		t.Errorf("after the undo %q = %+v, %v; want it back", p.Keys[1], e, ok)
	}
	s.checkPage("undo")

	s.do("open Lufthansa in the explorer", chromedp.Navigate(s.base+"/graph?entity=lufthansa"), chromedp.WaitVisible(chromedp.CSS("#graph-canvas")))
	s.waitFor("the drawing", "window.hopwiseGraph && hopwiseGraph.getElementById('lufthansa').length === 1", 10*time.Second)
	eval[bool](s, "hopwiseGraph.getElementById('lufthansa').emit('tap') && true")
	s.waitFor("Lufthansa's details", "!!document.querySelector('#graph-detail #fix-entity')", 5*time.Second)
	s.screenshot("33-entity-detail-fix")
	s.do("open its page", chromedp.Click(chromedp.CSS("#graph-detail #fix-entity")), chromedp.WaitVisible(chromedp.CSS("#rename-form")))
	s.do("rename", chromedp.SetValue(chromedp.CSS("#rename-name"), "Lufthansa Airlines"),
		chromedp.Click(chromedp.CSS("#rename-form button[type=submit]")))
	s.waitFor("renamed", textOf("h1")+".includes('Lufthansa Airlines') && "+textOf("#edit-history")+".includes('Renamed')", 5*time.Second)
	s.screenshot("34-entity-renamed")
	if e, _ := entity("lufthansa"); e.Name != "Lufthansa Airlines" || !slices.Contains(e.Aliases, "Lufthansa") {
		t.Errorf("after the rename: %q, names %q", e.Name, e.Aliases)
	}
	s.checkPage("rename")
}

// textOf is a JavaScript expression for the text of the first element sel selects, "" while there is none
// (a page still loading).
func textOf(sel string) string {
	return "((document.querySelector(" + jsString(sel) + ") || {}).innerText || '')"
}
