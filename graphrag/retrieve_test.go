package graphrag

import (
	"math"
	"testing"
)

func sc(ids ...string) []ScoredChunk {
	out := make([]ScoredChunk, len(ids))
	for i, id := range ids {
		out[i] = ScoredChunk{Chunk: Chunk{ID: id}, Rank: i + 1}
	}
	return out
}

func TestFuse(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]ScoredChunk
		k     int
		want  []string
	}{
		{"agreement wins", [][]ScoredChunk{sc("a", "b", "c"), sc("b", "c", "a")}, 3, []string{"b", "a", "c"}},
		{"found by both beats top of one", [][]ScoredChunk{sc("x", "y"), sc("z", "y")}, 3, []string{"y", "x", "z"}},
		{"k cuts", [][]ScoredChunk{sc("a", "b", "c")}, 2, []string{"a", "b"}},
		{"empty", nil, 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Fuse(tt.lists, tt.k)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d results, want %d", len(got), len(tt.want))
			}
			for i, id := range tt.want {
				if got[i].ID != id || got[i].Rank != i+1 {
					t.Errorf("result %d = %s (rank %d), want %s", i, got[i].ID, got[i].Rank, id)
				}
			}
		})
	}
}

func TestFuseScoreIsRRF(t *testing.T) {
	got := Fuse([][]ScoredChunk{sc("a"), sc("b", "a")}, 1)
	want := 1.0/61 + 1.0/62
	if got[0].ID != "a" || math.Abs(got[0].Score-want) > 1e-12 {
		t.Fatalf("got %s %.6f, want a %.6f", got[0].ID, got[0].Score, want)
	}
}

func TestFactSentence(t *testing.T) {
	rel := Relation{SourceName: "Munich", TargetName: "Delhi", Type: "DISTANCE_FROM",
		Values: map[string]any{"distance_km": 5921.0, "unit": "km"}, Description: "great-circle distance"}
	want := "Munich DISTANCE_FROM Delhi (distance_km: 5921, unit: km): great-circle distance"
	if got := FactSentence(rel); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
