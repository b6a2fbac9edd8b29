package handlers_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/handlers/webtest"
)

const hostile = `<script>alert(1)</script><img src=x onerror=alert(2)>`

// Rows 19 and 20 of RELIABILITY.md: HTML in file names, document text, entity names and model output is
// shown as text; scripts, event handlers, javascript: links and outside images never reach a page.
func TestHostileContentNeverReachesThePage(t *testing.T) {
	payload := "Munich answer " + hostile + "\n\n[click me](javascript:alert(3)) [or me](java&#115;cript:alert(4)) " +
		"![pixel](https://evil.example/p.png) <a href=\"/x\" onclick=\"alert(5)\">x</a> [1]"
	b := newBrowser(t, webtest.Options{Answers: map[string]string{"hostile": payload}})
	name := `<svg onload=alert(6)>.md`
	body := "# Title " + hostile + "\n\nMunich " + hostile + " [link](javascript:alert(7)) <a href=javascript:alert(8)>x</a>\n"
	b.upload([]file{{name, []byte(body)}}, true)
	docs := b.app.WaitDone(t, 10*time.Second)
	if len(docs) != 1 || docs[0].Status != graphrag.StatusDone {
		t.Fatalf("documents: %+v", docs)
	}
	putHostileEntity(t, b.app.Store, docs[0].ID)

	stream, convID := b.ask("hostile question about Munich", "")
	events := b.stream(stream)
	for _, ev := range events {
		if ev.name == "answer" || ev.name == "done" || ev.name == "step" {
			assertNoActiveContent(t, fragment(t, ev.data).Selection)
		}
	}
	if !strings.Contains(events[len(events)-1].data, "Munich answer") {
		t.Fatalf("the answer did not arrive: %+v", events[len(events)-1])
	}

	for _, path := range []string{"/", "/?c=" + convID, "/documents", "/documents/" + docs[0].ID, "/graph?q=script",
		"/graph?entity=" + "script alert 1 script", "/graph/entity?key=script+alert+1+script"} {
		t.Run(path, func(t *testing.T) {
			_, doc := b.get(path)
			assertNoActiveContent(t, doc.Selection)
		})
	}
	_, doc := b.get("/documents")
	if !strings.Contains(doc.Find("#documents").Text(), "<svg onload=alert(6)>") {
		t.Error("the file name is not shown as text")
	}
	_, doc = b.get("/graph/entity?key=script+alert+1+script")
	if !strings.Contains(doc.Find("h2").Text(), "<script>") {
		t.Errorf("the entity name is not shown as text: %q", doc.Find("h2").Text())
	}
	resp, _ := b.get("/api/graph/neighborhood?entity=munich")
	raw, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(raw), "<script") {
		t.Error("the graph JSON carries raw HTML; it must be escaped")
	}
}

// putHostileEntity adds an entity whose name is HTML, linked to Munich, as a careless extraction could.
func putHostileEntity(t *testing.T, store interface {
	DocumentChunks(context.Context, string) ([]graphrag.Chunk, error)
	PutExtraction(context.Context, graphrag.Extraction) error
}, docID string) {
	t.Helper()
	chunks, err := store.DocumentChunks(context.Background(), docID)
	if err != nil || len(chunks) == 0 {
		t.Fatalf("chunks: %v", err)
	}
	c := chunks[0]
	name := "<script>alert(1)</script>"
	key := graphrag.NormalizeKey(name)
	x := graphrag.Extraction{ChunkID: c.ID,
		Entities: []graphrag.Entity{
			{Key: key, Name: name, Type: `<b onmouseover=alert(9)>`, Description: hostile, Aliases: []string{name}, ChunkIDs: []string{c.ID}, DocIDs: []string{docID}},
			{Key: "munich", Name: "Munich", Type: "city", Aliases: []string{"Munich"}, ChunkIDs: []string{c.ID}, DocIDs: []string{docID}},
		},
		Relations: []graphrag.Relation{{ID: graphrag.RelationID(key, "NEAR", "munich"), Source: key, Target: "munich",
			SourceName: name, TargetName: "Munich", Type: "NEAR", Description: hostile,
			Values: map[string]any{"<i>": "<img src=x onerror=alert(10)>"}, ChunkIDs: []string{c.ID}, DocIDs: []string{docID}}},
	}
	if err := store.PutExtraction(context.Background(), x); err != nil {
		t.Fatal(err)
	}
}
