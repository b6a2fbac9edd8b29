package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/handlers/webtest"
)

type neighbourhood struct {
	Nodes []struct{ Key, Name, Type string }
	Edges []struct {
		ID, Source, Target, Type, Label string
		Values                          map[string]any
	}
}

func TestGraphExplorer(t *testing.T) {
	b := newBrowser(t, webtest.Options{Demo: true})

	_, doc := b.get("/graph?q=Munich")
	if !strings.Contains(doc.Find("#entity-results").Text(), "Munich") {
		t.Fatalf("search results: %q", doc.Find("main").Text())
	}
	canvas := doc.Find("#graph-canvas")
	if canvas.AttrOr("data-entities", "") != "munich" {
		t.Fatalf("the exact match is not drawn: %q", canvas.AttrOr("data-entities", ""))
	}
	if !strings.Contains(doc.Find("#edge-list").Text(), "Delhi") {
		t.Errorf("the list of facts lacks Delhi: %s", doc.Find("#edge-list").Text())
	}

	resp, _ := b.get("/api/graph/neighborhood?entity=munich")
	var g neighbourhood
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
		t.Fatal(err)
	}
	var delhiEdge string
	for _, e := range g.Edges {
		if e.Source == "munich" && e.Target == "delhi" && e.Type == "DISTANCE_FROM" {
			delhiEdge = e.ID
			if km, _ := e.Values["distance_km"]; km != "5921" && km != 5921.0 {
				t.Errorf("distance value %v", e.Values)
			}
		}
	}
	if delhiEdge == "" {
		t.Fatalf("no Munich-Delhi distance in %+v", g.Edges)
	}
	names := map[string]string{}
	for _, n := range g.Nodes {
		names[n.Key] = n.Name
	}
	if names["delhi"] != "Delhi" || names["munich"] != "Munich" {
		t.Errorf("nodes %v", names)
	}

	_, detail := b.get("/graph/entity?key=delhi")
	if detail.Find("h2").Text() != "Delhi" || detail.Find("button[data-expand=delhi]").Length() != 1 {
		t.Errorf("entity detail: %s", detail.Text())
	}
	if href := detail.Find("a[href*='#chunk-']").AttrOr("href", ""); !strings.HasPrefix(href, "/documents/") {
		t.Errorf("entity detail does not link its source passage: %q", href)
	}

	_, rel := b.get("/graph/relation?id=" + delhiEdge + "&source=munich")
	if !strings.Contains(rel.Find("dl").Text(), "5921") || !strings.Contains(rel.Find("h2").Text(), "Munich → Delhi") {
		t.Errorf("relation detail: %s", rel.Text())
	}

	// The graph behind an answer shows exactly its facts.
	q := url.Values{"facts": {delhiEdge}, "entity": {"munich", "delhi"}}
	_, facts := b.get("/graph?" + q.Encode())
	if n := facts.Find("#edge-list li").Length(); n != 1 {
		t.Errorf("facts view lists %d facts, want 1", n)
	}
	if facts.Find("#graph-canvas").AttrOr("data-facts", "") != delhiEdge {
		t.Error("the drawing is not limited to the facts")
	}

	resp, _ = b.get("/graph/entity?key=atlantis")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown entity: %d", resp.StatusCode)
	}
	_, none := b.get("/graph?q=Atlantis")
	if !strings.Contains(none.Find(".notice").Text(), "No name matches") {
		t.Errorf("no match: %q", none.Find("main").Text())
	}
}
