package graphrag

import (
	"slices"
	"testing"
)

func chunkIDs(cs []ScoredChunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

// scored is a ranked list of the ids with the scores given, in that order.
func scored(pairs ...any) []ScoredChunk {
	var out []ScoredChunk
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, ScoredChunk{Chunk: Chunk{ID: pairs[i].(string)}, Score: pairs[i+1].(float64), Rank: i/2 + 1})
	}
	return out
}

// A passage BM25 ranks first on the question's words, but the vectors only fifth (MuSiQue's "South
// Branch Souhegan River" for a question about the Merrimack River), does not displace the vectors' first
// passages; it still comes before the passages neither list ranks high.
func TestHybridListLedByTheVectors(t *testing.T) {
	dense := scored("merrimack", 0.476, "meramec", 0.474, "kraus", 0.463, "warner", 0.449, "souhegan", 0.448,
		"a", 0.40, "b", 0.39, "c", 0.30)
	keyword := scored("souhegan", 16.2, "c", 12.6, "warner", 12.5, "kraus", 12.1, "b", 6.0)
	queries := []Query{{Text: "Where does the Merrimack River start in the state where the Kraus House is located?"}}
	fused := fuseHybrid(queries, [][]ScoredChunk{keyword}, [][]ScoredChunk{dense}, nil, 10)
	if fused[0].ID != "souhegan" {
		t.Fatalf("fused by scores %v: want BM25's passage first, the case the lead is for", chunkIDs(fused))
	}
	got := hybridList(queries, dense, fused, 6)
	if want := []string{"merrimack", "meramec", "kraus", "warner", "souhegan", "a"}; !slices.Equal(chunkIDs(got), want) {
		t.Errorf("hybrid list %v, want %v", chunkIDs(got), want)
	}
	for i, c := range got {
		if c.Rank != i+1 {
			t.Errorf("%s at %d has rank %d", c.ID, i+1, c.Rank)
		}
	}
	if got[0].Score != scoreOf(fused, "merrimack") {
		t.Errorf("a led passage scores %v, want its fused score %v", got[0].Score, scoreOf(fused, "merrimack"))
	}
}

// A query that names an identifier or a code keeps the fused order: BM25 finds the exact policy number,
// which the vectors place near every similar one.
func TestHybridListForIdentifiersIsFused(t *testing.T) {
	dense := scored("trv-118", 0.81, "trv-116", 0.80, "handbook", 0.79, "trv-117", 0.70, "x", 0.2)
	keyword := scored("trv-117", 9.0, "x", 1.0)
	queries := []Query{{Text: "What does policy TRV-117 cover?"}}
	fused := fuseHybrid(queries, [][]ScoredChunk{keyword}, [][]ScoredChunk{dense}, nil, 5)
	got := hybridList(queries, dense, fused, 5)
	if !slices.Equal(chunkIDs(got), chunkIDs(fused)) || got[0].ID != "trv-117" {
		t.Errorf("identifier query: %v, want the fused order %v with the policy first", chunkIDs(got), chunkIDs(fused))
	}
}

func scoreOf(cs []ScoredChunk, id string) float64 {
	for _, c := range cs {
		if c.ID == id {
			return c.Score
		}
	}
	return -1
}
