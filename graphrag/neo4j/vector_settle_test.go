package neo4j

import (
	"slices"
	"testing"
	"time"
)

// TestVectorIndexTouchChangesNothing checks the touches of the vector index after vector writes (which
// make Neo4j refresh its searcher over the segments merged since the writes, vector_settle.go): one at
// each delay of the schedule after Open and after the writes, one at Close when one is still due (after
// writes), none when none is, and the chunks' vectors and search results as they were.
func TestVectorIndexTouchChangesNothing(t *testing.T) {
	defer func(d []time.Duration) { settleDelays = d }(settleDelays)
	settleDelays = []time.Duration{20 * time.Millisecond, 60 * time.Millisecond}
	const dim = 8
	uri := testURI(t)
	wipe(t, uri, dim, false)
	s, err := Open(t.Context(), uri, "", "", Options{EmbedDim: dim, EmbedModel: testModel}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := waitTouches(s, 2); got != 2 {
		t.Fatalf("%d touches after Open, want one at each of the 2 delays", got)
	}
	_, chunks := putDoc(t, s, "touched", "one", "two", "three")
	vecs := map[string][]float32{
		chunks[0].ID: {1, 0, 0, 0, 0, 0, 0, 0},
		chunks[1].ID: {0.6, 0.8, 0, 0, 0, 0, 0, 0},
		chunks[2].ID: {0, 0, 1, 0, 0, 0, 0.5, 0.25},
	}
	if err := s.SetEmbeddings(t.Context(), vecs); err != nil {
		t.Fatal(err)
	}
	before, err := s.SearchVector(t.Context(), []float32{1, 0.1, 0, 0, 0, 0, 0, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := waitTouches(s, 4); got != 4 {
		t.Fatalf("%d touches after the writes, want 2 more, one at each delay", got)
	}
	time.Sleep(100 * time.Millisecond)
	if got := touches(s); got != 4 {
		t.Errorf("%d touches once the schedule ended, want 4", got)
	}
	after, err := s.SearchVector(t.Context(), []float32{1, 0.1, 0, 0, 0, 0, 0, 0}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("search after the touches found %d chunks, before %d", len(after), len(before))
	}
	for i := range after {
		if after[i].ID != before[i].ID || after[i].Score != before[i].Score {
			t.Errorf("search after the touches, rank %d: %s %.6f, before %s %.6f", i+1, after[i].ID, after[i].Score,
				before[i].ID, before[i].Score)
		}
	}
	for id, want := range vecs {
		res := cypher(t, uri, `MATCH (c:Chunk {id: $id}) RETURN c.embedding`, map[string]any{"id": id})
		if got := float32s(res[0].Values[0]); !slices.Equal(got, want) {
			t.Errorf("vector of %s after the touches = %v, want %v", id, got, want)
		}
	}

	// Written again and closed at once: Close makes the touch due.
	if err := s.SetEmbeddings(t.Context(), map[string][]float32{chunks[0].ID: vecs[chunks[0].ID]}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := touches(s); got != 5 {
		t.Errorf("%d touches after Close, want 5 (one at Close)", got)
	}
	s.vectorsWritten() // after Close: nothing is scheduled
	time.Sleep(100 * time.Millisecond)
	if got := touches(s); got != 5 {
		t.Errorf("%d touches after a write past Close, want 5", got)
	}

	// Opened and closed before its first touch, nothing written: no touch at Close.
	settleDelays = []time.Duration{time.Minute}
	s2, err := Open(t.Context(), uri, "", "", Options{EmbedDim: dim, EmbedModel: testModel}, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Close(); err != nil {
		t.Fatal(err)
	}
	if got := touches(s2); got != 0 {
		t.Errorf("%d touches by a store closed at once without writes, want 0", got)
	}
	res := cypher(t, uri, `MATCH (c:Chunk) WHERE c.settling IS NOT NULL RETURN count(c)`, nil)
	if n := asInt(res[0].Values[0]); n != 0 {
		t.Errorf("%d chunks keep the touch's lock property", n)
	}
}

func touches(s *Store) int {
	s.settle.mu.Lock()
	defer s.settle.mu.Unlock()
	return s.settle.touches
}

// waitTouches waits up to 5 s for n touches and returns how many were made.
func waitTouches(s *Store, n int) int {
	deadline := time.Now().Add(5 * time.Second)
	for touches(s) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return touches(s)
}
