package graphrag_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestLinkingHandlesPossessivesPluralsAccentsAndLongNames puts a small graph in a real store and links
// the names questions write: a possessive, a plural, a name without its accent, an eleven-word title (and
// not the short entities inside it), and a common noun with a lower confidence than a proper name.
func TestLinkingHandlesPossessivesPluralsAccentsAndLongNames(t *testing.T) {
	env := newIdleEnv(t, graphrag.IngestOptions{})
	ctx := context.Background()
	doc, _, err := env.ingester.Submit(ctx, "names.txt", strings.NewReader("names"))
	if err != nil {
		t.Fatal(err)
	}
	c := graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, 0), DocID: doc.ID, Text: "names"}
	if err := env.store.PutChunks(ctx, doc.ID, []graphrag.Chunk{c}); err != nil {
		t.Fatal(err)
	}
	x := graphrag.TriplesExtraction(c, []string{"Barry Wesson", "city", "Aschenbrödel", "Good",
		"Alexander and the Terrible, Horrible, No Good, Very Bad Day"},
		[]graphrag.Triple{{Subject: "Judith Viorst", Predicate: "wrote", Object: "Alexander and the Terrible, Horrible, No Good, Very Bad Day"}})
	if err := env.store.PutExtraction(ctx, x); err != nil {
		t.Fatal(err)
	}
	link := func(q string) map[string]float64 {
		t.Helper()
		linked, err := env.retriever.LinkEntities(ctx, []string{q})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, e := range linked {
			out[e.Key] = e.Confidence
		}
		return out
	}
	if got := link("Who was Barry Wesson's father?"); got["barry wesson"] != 1 {
		t.Errorf("possessive: linked %v, want barry wesson at 1", got)
	}
	if got := link("Which cities lie on the river?"); got["city"] == 0 || got["city"] >= 1 {
		t.Errorf("plural of a common noun: linked %v, want city below 1", got)
	}
	if got := link("Who composed Aschenbrodel?"); got["aschenbrodel"] != 1 {
		t.Errorf("accent folded: linked %v", got)
	}
	title := graphrag.NormalizeKey("Alexander and the Terrible, Horrible, No Good, Very Bad Day")
	got := link("Who wrote Alexander and the Terrible, Horrible, No Good, Very Bad Day?")
	if got[title] != 1 {
		t.Errorf("long title: linked %v, want %q", got, title)
	}
	if _, ok := got["good"]; ok {
		t.Errorf("linked %v: Good lies inside the title's name and must not be linked alone", got)
	}
}
