package sqlite

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestSearchTextDropsCommonWords checks, on a store large enough to prune, that words most chunks hold
// stop costing a pass over them without changing what a rarer word finds.
func TestSearchTextDropsCommonWords(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 2)
	ctx := t.Context()
	src := []byte("Expense handbook")
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: "handbook.md"}
	if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
		t.Fatal(err)
	}
	chunks := make([]graphrag.Chunk, pruneFrom)
	vectors := map[string][]float32{}
	var rare []string
	for i := range chunks {
		text := fmt.Sprintf("Expense handbook. Part %d: receipts and forms.", i)
		if i%100 == 3 {
			text += " Per diem for Zanzibar."
			rare = append(rare, graphrag.ChunkID(doc.ID, i))
		}
		chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, i), Ordinal: i, Text: text}
		vectors[chunks[i].ID] = []float32{1, float32(i)}
	}
	if err := s.PutChunks(ctx, doc.ID, chunks); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbeddings(ctx, vectors); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		query    string
		wantTerm []string
		wantIDs  []string // nil: only the count is checked
		wantN    int
	}{
		{"common title words dropped", "expense handbook zanzibar", []string{"zanzibar"}, rare, len(rare)},
		{"a phrase is kept", "expense handbook per-diem", []string{"per diem"}, rare, len(rare)},
		{"common word alone is kept", "handbook", []string{"handbook"}, nil, 20},
		{"nothing rarer matches: all kept", "handbook atlantis", []string{"handbook", "atlantis"}, nil, 20},
		{"a phrase that cannot match keeps all", "handbook TRV-117", []string{"handbook", "trv 117"}, nil, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			terms, err := s.dropCommon(ctx, ftsTerms(tc.query))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, term := range terms {
				got = append(got, term.text)
			}
			if !slices.Equal(got, tc.wantTerm) {
				t.Errorf("dropCommon(%q) = %q, want %q", tc.query, got, tc.wantTerm)
			}
			res, err := s.SearchText(ctx, tc.query, 20)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != tc.wantN {
				t.Errorf("SearchText(%q) = %d results, want %d", tc.query, len(res), tc.wantN)
			}
			if tc.wantIDs != nil {
				var ids []string
				for _, r := range res {
					ids = append(ids, r.ID)
				}
				slices.Sort(ids)
				if !slices.Equal(ids, tc.wantIDs) {
					t.Errorf("SearchText(%q) = %v, want %v", tc.query, ids, tc.wantIDs)
				}
			}
		})
	}
}
