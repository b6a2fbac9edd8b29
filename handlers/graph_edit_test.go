package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

func entityNamed(t *testing.T, b *browser, key string) (graphrag.Entity, bool) {
	t.Helper()
	es, err := b.app.Store.Entities(context.Background(), []string{key})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		return graphrag.Entity{}, false
	}
	return es[0], true
}

// The duplicates page lists a proposed pair with its evidence; Merge merges it, the history's Undo puts
// it back, "Not the same" closes it for good.
func TestDuplicatesMergeUndoAndNotTheSame(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	p := webtest.AddDuplicate(t, b.app)
	dlh := p.Keys[1]

	_, doc := b.get("/graph/duplicates")
	pair := doc.Find("#pair-" + p.ID)
	if pair.Length() != 1 || !strings.Contains(pair.Text(), "Deutsche Lufthansa AG") || !strings.Contains(pair.Text(), "is a short form of") {
		t.Fatalf("duplicates page: pair %q", pair.Text())
	}
	resp, _ := b.post("/graph/duplicates/"+p.ID+"/merge", url.Values{}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("merge: %d", resp.StatusCode)
	}
	if _, ok := entityNamed(t, b, dlh); ok {
		t.Errorf("after the merge %q is still an entity", dlh)
	}
	if lh, _ := entityNamed(t, b, "lufthansa"); !slices.Contains(lh.Aliases, "Deutsche Lufthansa AG") {
		t.Errorf("Lufthansa's names after the merge: %q", lh.Aliases)
	}
	_, doc = b.get("/graph/duplicates?done=Merged.")
	if doc.Find("#pair-"+p.ID).Length() != 0 || !strings.Contains(doc.Find(".notice").Text(), "Merged") {
		t.Errorf("after the merge the page still lists the pair, or says nothing")
	}
	undo := doc.Find("#edit-history form.inline").First()
	action, _ := undo.Attr("action")
	if !strings.Contains(doc.Find("#edit-history").Text(), "Merged") || action == "" {
		t.Fatalf("history after the merge: %q", doc.Find("#edit-history").Text())
	}
	if resp, _ := b.post(action, url.Values{"back": {"/graph/duplicates"}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("undo: %d", resp.StatusCode)
	}
	if e, ok := entityNamed(t, b, dlh); !ok || e.Name != "Deutsche Lufthansa AG" {
		t.Errorf("after the undo %q = %+v, %v; want it back", dlh, e, ok)
	}
	if resp, doc := b.post(action, url.Values{}, false); resp.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Text(), "undone") {
		t.Errorf("a second undo: %d %q, want 400 saying it is undone", resp.StatusCode, doc.Find("main").Text())
	}

	// the resolver proposing the pair again changes nothing: it was decided
	webtest.AddDuplicate(t, b.app)
	if _, doc := b.get("/graph/duplicates"); doc.Find("#pair-"+p.ID).Length() != 0 {
		t.Errorf("the decided pair is listed again")
	}
	// another pair, refused
	other := p
	other.ID, other.Keys, other.Names = graphrag.ProposalID("lufthansa", "munich"), []string{"lufthansa", "munich"}, []string{"Lufthansa", "Munich"}
	if err := b.app.Store.ApplyEdit(context.Background(), other, graphrag.GraphPatch{}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := b.post("/graph/duplicates/"+other.ID+"/distinct", url.Values{}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("not the same: %d", resp.StatusCode)
	}
	if _, doc := b.get("/graph/duplicates"); doc.Find("#pair-"+other.ID).Length() != 0 {
		t.Errorf("the pair refused is still listed")
	}
	ds, err := b.app.Store.Edits(context.Background(), graphrag.EditQuery{Kinds: []graphrag.EditKind{graphrag.EditDistinct}, Keys: []string{"munich"}})
	if err != nil || len(ds) != 1 || ds[0].Target != other.ID {
		t.Errorf("distinct edits of munich: %+v, %v; want the decision on %s", ds, err, other.ID)
	}
}

// Rename, alias and deleting a fact from the entity's page; the entity's detail panel links there.
func TestEntityEditPage(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	webtest.AddDuplicate(t, b.app)
	_, doc := b.get("/graph/entity?key=lufthansa")
	if href, _ := doc.Find("#fix-entity").Attr("href"); href != "/graph/entities/edit?key=lufthansa" {
		t.Errorf("detail panel's fix link = %q", href)
	}
	resp, _ := b.post("/graph/entities/edit", url.Values{"key": {"lufthansa"}, "kind": {"rename"}, "name": {"Lufthansa Airlines"}}, false)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("rename: %d", resp.StatusCode)
	}
	_, doc = b.get("/graph/entities/edit?key=lufthansa")
	if got := doc.Find("h1").Text(); !strings.Contains(got, "Lufthansa Airlines") {
		t.Errorf("page title after rename %q", got)
	}
	if !strings.Contains(doc.Find("#edit-history").Text(), "Renamed") {
		t.Errorf("history: %q", doc.Find("#edit-history").Text())
	}
	if resp, doc := b.post("/graph/entities/edit", url.Values{"key": {"lufthansa"}, "kind": {"rename"}, "name": {""}}, false); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("empty rename: %d %q, want 400", resp.StatusCode, doc.Find("main").Text())
	}
	rel := graphrag.RelationID("lufthansa", "FLIES_TO", "munich")
	if resp, _ := b.post("/graph/entities/edit", url.Values{"key": {"lufthansa"}, "kind": {"delete_relation"}, "relation": {rel}}, false); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete fact: %d", resp.StatusCode)
	}
	edges, err := b.app.Store.Neighborhood(context.Background(), []string{"lufthansa"}, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		if e.ID == rel {
			t.Errorf("the deleted fact is still there")
		}
	}
}

// The JSON API: an edit made by a program, listed with the entity's edits; a refused edit says why.
func TestEditAPI(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})
	webtest.AddDuplicate(t, b.app)
	post := func(path, body string) (int, map[string]any) {
		resp, err := http.Post(b.srv.URL+path, "application/json", bytes.NewBufferString(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	code, out := post("/api/v1/graph/edits", `{"kind": "alias", "entity": "Lufthansa", "name": "LH"}`)
	if code != http.StatusCreated || out["kind"] != "alias" || out["by"] != "user" {
		t.Fatalf("alias: %d %v", code, out)
	}
	if e, _ := entityNamed(t, b, "lufthansa"); !slices.Contains(e.Aliases, "LH") {
		t.Errorf("aliases after the API's alias: %q", e.Aliases)
	}
	resp, err := http.Get(b.srv.URL + "/api/v1/graph/edits?entity=lufthansa")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Edits []map[string]any `json:"edits"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Edits) == 0 || list.Edits[0]["id"] != out["id"] {
		t.Errorf("edits of lufthansa: %v", list.Edits)
	}
	resp, err = http.Get(b.srv.URL + "/api/v1/graph/duplicates")
	if err != nil {
		t.Fatal(err)
	}
	var dups struct {
		Duplicates []map[string]any `json:"duplicates"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&dups)
	resp.Body.Close()
	if len(dups.Duplicates) != 1 || dups.Duplicates[0]["rule"] != "possible short form" {
		t.Errorf("duplicates: %v", dups.Duplicates)
	}
	if code, out := post("/api/v1/graph/edits", `{"kind": "merge", "entity": "lufthansa", "other": "no such thing"}`); code != http.StatusBadRequest || !strings.Contains(out["error"].(string), `"no such thing"`) {
		t.Errorf("merge with an unknown entity: %d %v, want 400 naming it", code, out)
	}
	if code, out := post("/api/v1/graph/edits/"+out["id"].(string)+"/undo", ``); code != http.StatusCreated || out["kind"] != "undo" {
		t.Errorf("undo: %d %v", code, out)
	}
	if e, _ := entityNamed(t, b, "lufthansa"); slices.Contains(e.Aliases, "LH") {
		t.Errorf("aliases after the undo: %q", e.Aliases)
	}
}
