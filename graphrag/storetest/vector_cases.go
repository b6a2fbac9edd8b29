package storetest

import (
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var vectorCases = []testCase{
	{"ranks by cosine similarity", testVectorOrder},
	{"uses a replaced vector", testVectorReplaced},
	{"refuses another dimension with ErrDimension", testVectorDimension},
}

func testVectorOrder(t *testing.T, f *fixture) {
	d := f.doc("vectors.txt", "vectors")
	cs := f.chunks(d, "along x", "along y", "between x and y", "against x", "not embedded")
	diag := axis(0)
	diag[1] = 1
	against := axis(0)
	against[0] = -1
	f.embed(map[string][]float32{cs[0].ID: axis(0), cs[1].ID: axis(1), cs[2].ID: diag, cs[3].ID: against})

	query := axis(0)
	query[0] = 3 // length must not matter
	query[1] = 0.3
	tests := []struct {
		name string
		k    int
		want []string
	}{
		{"all embedded chunks, best first", 10, []string{cs[0].ID, cs[2].ID, cs[1].ID, cs[3].ID}},
		{"top two", 2, []string{cs[0].ID, cs[2].ID}},
	}
	for _, tc := range tests {
		got := f.searchVector(query, tc.k)
		if !slices.Equal(ids(got), tc.want) {
			t.Errorf("%s: SearchVector = %v, want %v", tc.name, ids(got), tc.want)
		}
		checkRanks(t, tc.name, got)
		for i := 1; i < len(got); i++ {
			if got[i].Score == got[i-1].Score {
				t.Errorf("%s: ranks %d and %d share score %v; cosines differ", tc.name, i, i+1, got[i].Score)
			}
		}
		if len(got) > 0 && (got[0].DocName != d.Name || got[0].Text != "along x") {
			t.Errorf("%s: first result doc %q text %q, want %q %q", tc.name, got[0].DocName, got[0].Text, d.Name, "along x")
		}
	}
}

func testVectorReplaced(t *testing.T, f *fixture) {
	d := f.doc("replace.txt", "replace")
	cs := f.chunks(d, "a", "b")
	f.embed(map[string][]float32{cs[0].ID: axis(0), cs[1].ID: axis(1)})
	f.embed(map[string][]float32{cs[1].ID: axis(2)})
	got := f.searchVector(axis(2), 1)
	if !slices.Equal(ids(got), []string{cs[1].ID}) {
		t.Errorf("SearchVector after replacing a vector = %v, want [%s]", ids(got), cs[1].ID)
	}
}

func testVectorDimension(t *testing.T, f *fixture) {
	d := f.doc("dim.txt", "dimension")
	cs := f.chunks(d, "a", "b")
	err := f.s.SetEmbeddings(f.ctx, map[string][]float32{cs[0].ID: axis(0), cs[1].ID: make([]float32, dim-1)})
	wantErr(t, "SetEmbeddings with a short vector", err, graphrag.ErrDimension)
	_, err = f.s.SearchVector(f.ctx, make([]float32, dim+1), 3)
	wantErr(t, "SearchVector with a long vector", err, graphrag.ErrDimension)
	f.wantStats("after a refused batch", graphrag.Stats{Documents: 1, Chunks: 2})
}
