package agent

import (
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestCitationsCarryThePage: a cited passage, and a cited fact through its first source passage, give the
// page the passage starts on; a passage of a format without pages gives none.
func TestCitationsCarryThePage(t *testing.T) {
	slide := graphrag.Chunk{ID: "d1-0003", DocID: "d1", DocName: "review.pptx", Text: "600 EUR beyond 3,500 km", Page: 2}
	srcs := []source{
		{kind: KindChunk, chunk: slide},
		{kind: KindFact, fact: graphrag.Fact{ID: "f1", Sentence: "Munich DISTANCE Delhi", Sources: []graphrag.Chunk{
			{ID: "d2-0001", DocID: "d2", DocName: "rules.pdf", Text: "Delhi to Munich: 5,921 km", Page: 7}}}},
		{kind: KindChunk, chunk: graphrag.Chunk{ID: "d3-0000", DocID: "d3", DocName: "notes.md", Text: "no pages"}},
	}
	got := citations("Compensation is 600 EUR [1] for 5,921 km [2]; see also [3].", srcs)
	if len(got) != 3 {
		t.Fatalf("citations = %+v", got)
	}
	for i, want := range []int{2, 7, 0} {
		if got[i].Page != want {
			t.Errorf("citation %d: page %d, want %d (%+v)", i+1, got[i].Page, want, got[i])
		}
	}
}
