package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

var reindexCases = []testCase{
	{"a re-embedding to another dimension is searched only once committed, then alone", testReembedAnotherDimension},
	{"BeginReembed again keeps what was staged, another target drops it", testReembedBeginAgain},
	{"staging without a re-embedding or in another dimension is refused", testReembedRefused},
	{"searches during a re-embedding and its commit always answer", testReembedReaders},
}

// newDim is the dimension of the model a re-embedding moves to.
const newDim = 4

// axisIn is the unit vector along dimension i of a space of n dimensions.
func axisIn(n, i int) []float32 {
	v := make([]float32, n)
	v[i%n] = 1
	return v
}

// reembedFixture stores two documents of three passages and a relation with a vector; it returns the
// chunks, each embedded along its own axis of the old space.
func (f *fixture) reembedFixture() ([]graphrag.Chunk, graphrag.Relation) {
	f.t.Helper()
	a, b := f.doc("a.txt", "a"), f.doc("b.txt", "b")
	cs := append(f.chunks(a, "Munich to Delhi is 5,921 km.", "Delhi is in India.", "Munich is in Bavaria."),
		f.chunks(b, "Lufthansa flies to Delhi.", "Lufthansa is an airline.", "Flights are delayed.")...)
	vectors := map[string][]float32{}
	for i, c := range cs {
		vectors[c.ID] = axis(i)
	}
	f.embed(vectors)
	munich, delhi := ent("Munich", "CITY", "city"), ent("Delhi", "CITY", "city")
	distance := rel(delhi, "DISTANCE_FROM", munich, map[string]any{"distance_km": 5921})
	distance.Embedding = axis(7)
	f.extract(cs[0].ID, []graphrag.Entity{munich, delhi}, distance)
	return cs, distance
}

// newVectors gives each chunk of cs the new space's axis i%newDim, reversed so that no new vector equals
// the old one cut short.
func newVectors(cs []graphrag.Chunk) map[string][]float32 {
	out := map[string][]float32{}
	for i, c := range cs {
		out[c.ID] = axisIn(newDim, newDim-1-i%newDim)
	}
	return out
}

func (f *fixture) reembedState() graphrag.ReembedState {
	f.t.Helper()
	st, err := f.s.ReembedState(f.ctx)
	if err != nil {
		f.t.Fatalf("ReembedState: %v", err)
	}
	return st
}

// stageAll stages the new vectors of everything ReembedTodo lists, a batch of limit at a time, and returns
// how many passages and facts it staged.
func (f *fixture) stageAll(vectors map[string][]float32, rel []float32, limit int) (chunks, rels int) {
	f.t.Helper()
	for range 100 {
		todoC, todoR, err := f.s.ReembedTodo(f.ctx, limit)
		if err != nil {
			f.t.Fatalf("ReembedTodo: %v", err)
		}
		if len(todoC)+len(todoR) == 0 {
			return chunks, rels
		}
		cv, rv := map[string][]float32{}, map[string][]float32{}
		for _, c := range todoC {
			cv[c.ID] = vectors[c.ID]
		}
		for _, r := range todoR {
			rv[r.ID] = rel
		}
		if err := f.s.StageEmbeddings(f.ctx, cv, rv); err != nil {
			f.t.Fatalf("StageEmbeddings: %v", err)
		}
		chunks, rels = chunks+len(todoC), rels+len(todoR)
	}
	f.t.Fatalf("ReembedTodo still lists work after 100 batches")
	return chunks, rels
}

// testReembedAnotherDimension: six passages and a fact of dimension 8 move to a model of dimension 4.
// While staged, searches read the old vectors and the new dimension is refused; an incomplete commit
// changes nothing; once committed, only the new vectors answer (the old dimension is refused for writes),
// the fact's new vector is compared with queries and the state records no re-embedding.
func testReembedAnotherDimension(t *testing.T, f *fixture) {
	cs, distance := f.reembedFixture()
	old := f.s.EmbeddingSpace()
	if old.Dim != dim {
		t.Fatalf("EmbeddingSpace() = %+v, want dimension %d", old, dim)
	}
	target := graphrag.EmbeddingSpace{Model: "new-model", Dim: newDim}
	if err := f.s.BeginReembed(f.ctx, target); err != nil {
		t.Fatalf("BeginReembed: %v", err)
	}
	st := f.reembedState()
	if st.Target != target || st.Active != old || st.Chunks != 6 || st.ChunksStaged != 0 || st.Relations != 1 || st.RelationsStaged != 0 {
		t.Errorf("ReembedState after BeginReembed = %+v; want target %+v, 6 chunks and 1 relation, none staged", st, target)
	}
	todoC, todoR, err := f.s.ReembedTodo(f.ctx, 4)
	if err != nil || len(todoC) != 4 || len(todoR) != 1 || todoR[0].ID != distance.ID ||
		todoR[0].SourceName != "Delhi" || todoR[0].TargetName != "Munich" || todoR[0].Type != "DISTANCE_FROM" {
		t.Fatalf("ReembedTodo(4) = %d chunks, %+v, %v; want 4 chunks and the distance with its names", len(todoC), todoR, err)
	}
	for _, c := range todoC {
		if i := slices.IndexFunc(cs, func(x graphrag.Chunk) bool { return x.ID == c.ID }); i < 0 || cs[i].Text != c.Text {
			t.Errorf("ReembedTodo chunk %s text %q: not a stored passage", c.ID, c.Text)
		}
	}
	vectors := newVectors(cs)
	half := map[string][]float32{cs[0].ID: vectors[cs[0].ID], cs[1].ID: vectors[cs[1].ID], cs[2].ID: vectors[cs[2].ID]}
	if err := f.s.StageEmbeddings(f.ctx, half, nil); err != nil {
		t.Fatalf("StageEmbeddings: %v", err)
	}
	if st := f.reembedState(); st.ChunksStaged != 3 {
		t.Errorf("ReembedState after staging 3 = %+v, want 3 chunks staged", st)
	}
	// Every search asks for all six passages: Neo4j's approximate index may miss the nearest among
	// orthogonal vectors when asked for one.
	if got := f.searchVector(axis(1), 6); len(got) != 6 || got[0].ID != cs[1].ID {
		t.Errorf("SearchVector(old axis 1) while staged = %v, want %s first of six", ids(got), cs[1].ID)
	}
	_, err = f.s.SearchVector(f.ctx, axisIn(newDim, 0), 3)
	wantErr(t, "SearchVector(new dimension) while staged", err, graphrag.ErrDimension)
	err = f.s.CommitReembed(f.ctx)
	wantErr(t, "CommitReembed with 3 passages and the fact not staged", err, graphrag.ErrReembedIncomplete)
	if got := f.searchVector(axis(4), 6); len(got) != 6 || got[0].ID != cs[4].ID {
		t.Errorf("SearchVector(old axis 4) after an incomplete commit = %v, want %s first of six", ids(got), cs[4].ID)
	}
	if n, r := f.stageAll(vectors, axisIn(newDim, 2), 2); n != 3 || r != 1 {
		t.Errorf("ReembedTodo listed %d passages and %d facts after 3 were staged, want 3 and 1", n, r)
	}
	before, err := f.s.Generation(f.ctx)
	if err != nil {
		t.Fatalf("Generation: %v", err)
	}
	if err := f.s.CommitReembed(f.ctx); err != nil {
		t.Fatalf("CommitReembed: %v", err)
	}
	// A retrieval pass across the swap would have searched two spaces: the swap is a change.
	if after, err := f.s.Generation(f.ctx); err != nil || after == before {
		t.Errorf("Generation after CommitReembed = %d, %v; want another than %d", after, err, before)
	}

	if got := f.s.EmbeddingSpace(); got != target {
		t.Errorf("EmbeddingSpace() after the commit = %+v, want %+v", got, target)
	}
	if st := f.reembedState(); st.Target != (graphrag.EmbeddingSpace{}) || st.Active != target || st.Chunks != 6 {
		t.Errorf("ReembedState after the commit = %+v; want no target, active %+v, 6 chunks", st, target)
	}
	// cs[0] and cs[4] both lie on the new axis 3; cs[1] and cs[5] on axis 2.
	if got := f.searchVector(axisIn(newDim, 3), 6); len(got) != 6 || !sameSet(ids(got)[:2], []string{cs[0].ID, cs[4].ID}) {
		t.Errorf("SearchVector(new axis 3) = %v, want all six with %s and %s first", ids(got), cs[0].ID, cs[4].ID)
	}
	if got := f.searchVector(axisIn(newDim, 2), 6); len(got) != 6 || !sameSet(ids(got)[:2], []string{cs[1].ID, cs[5].ID}) {
		t.Errorf("SearchVector(new axis 2) = %v, want all six with %s and %s first", ids(got), cs[1].ID, cs[5].ID)
	}
	err = f.s.SetEmbeddings(f.ctx, map[string][]float32{cs[0].ID: axis(0)})
	wantErr(t, "SetEmbeddings(old dimension) after the commit", err, graphrag.ErrDimension)
	sg, err := f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{Keys: []string{distance.Source}, Vectors: [][]float32{axisIn(newDim, 2)},
		PerEntity: 5, MaxRelations: 10})
	if err != nil || sg.Near[distance.ID] < 0.99 {
		t.Errorf("Subgraph near the fact's new vector = %v, %v; want cosine 1", sg.Near, err)
	}
	d, err := f.s.Document(f.ctx, cs[0].DocID)
	if err != nil || d.ChunksEmbedded != 3 {
		t.Errorf("document after the commit = %d chunks embedded, %v; want 3", d.ChunksEmbedded, err)
	}
	// A new passage is embedded in the new space.
	c := f.chunks(f.doc("c.txt", "c"), "Trains are on time.")
	f.embed(map[string][]float32{c[0].ID: axisIn(newDim, 1)})
	if got := f.searchVector(axisIn(newDim, 1), 7); len(got) != 7 || !sameSet(ids(got)[:2], []string{cs[2].ID, c[0].ID}) {
		t.Errorf("SearchVector(new axis 1) = %v, want %s and the new passage %s", ids(got), cs[2].ID, c[0].ID)
	}
}

// testReembedBeginAgain: a re-embedding begun again with its target (a restarted reindex) keeps what was
// staged, and ReembedTodo lists only the rest; another target starts over.
func testReembedBeginAgain(t *testing.T, f *fixture) {
	cs, _ := f.reembedFixture()
	target := graphrag.EmbeddingSpace{Model: "new-model", Dim: newDim}
	if err := f.s.BeginReembed(f.ctx, target); err != nil {
		t.Fatalf("BeginReembed: %v", err)
	}
	vectors := newVectors(cs)
	if err := f.s.StageEmbeddings(f.ctx, map[string][]float32{cs[0].ID: vectors[cs[0].ID], cs[3].ID: vectors[cs[3].ID]}, nil); err != nil {
		t.Fatalf("StageEmbeddings: %v", err)
	}
	if err := f.s.BeginReembed(f.ctx, target); err != nil {
		t.Fatalf("BeginReembed again: %v", err)
	}
	todo, _, err := f.s.ReembedTodo(f.ctx, 10)
	if err != nil || len(todo) != 4 || slices.ContainsFunc(todo, func(c graphrag.Chunk) bool { return c.ID == cs[0].ID || c.ID == cs[3].ID }) {
		t.Errorf("ReembedTodo after beginning again = %d chunks, %v; want the 4 not staged", len(todo), err)
	}
	other := graphrag.EmbeddingSpace{Model: "other-model", Dim: 2}
	if err := f.s.BeginReembed(f.ctx, other); err != nil {
		t.Fatalf("BeginReembed(another target): %v", err)
	}
	if st := f.reembedState(); st.Target != other || st.ChunksStaged != 0 {
		t.Errorf("ReembedState after another target = %+v, want target %+v and nothing staged", st, other)
	}
	err = f.s.StageEmbeddings(f.ctx, map[string][]float32{cs[0].ID: vectors[cs[0].ID]}, nil)
	wantErr(t, "StageEmbeddings(dimension 4) for a target of 2", err, graphrag.ErrDimension)
}

// testReembedRefused: staging needs a re-embedding begun, and a commit without one fails.
func testReembedRefused(t *testing.T, f *fixture) {
	cs, _ := f.reembedFixture()
	if err := f.s.StageEmbeddings(f.ctx, map[string][]float32{cs[0].ID: axisIn(newDim, 0)}, nil); err == nil {
		t.Errorf("StageEmbeddings without a re-embedding begun: no error")
	}
	if err := f.s.CommitReembed(f.ctx); err == nil {
		t.Errorf("CommitReembed without a re-embedding begun: no error")
	}
	if err := f.s.BeginReembed(f.ctx, graphrag.EmbeddingSpace{Model: "m", Dim: 0}); err == nil {
		t.Errorf("BeginReembed(dimension 0): no error")
	}
	if got := f.s.EmbeddingSpace(); got.Dim != dim {
		t.Errorf("EmbeddingSpace() after refusals = %+v, want dimension %d", got, dim)
	}
}

// testReembedReaders re-embeds 24 passages to dimension 4 while readers search: some with a vector of the
// store's space as it is when they ask, some always with the old dimension (a query embedded by the old
// model just before the commit). No search fails and each finds its k passages, before, during and after
// the commit.
func testReembedReaders(t *testing.T, f *fixture) {
	const n, k = 24, 5
	texts := make([]string, n)
	for i := range texts {
		texts[i] = "Fleet report of the zebra squadron, aircraft " + string(rune('A'+i)) + "."
	}
	cs := f.chunks(f.doc("fleet.txt", "fleet"), texts...)
	f.embedAll(cs)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	searches := map[int]int{}
	reader := func(vectorFor func() []float32) {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			v := vectorFor()
			found, err := f.s.SearchVector(f.ctx, v, k)
			if err != nil || len(found) != k {
				t.Errorf("SearchVector(dimension %d) during the re-embedding = %d passages, %v; want %d", len(v), len(found), err, k)
				return
			}
			if found, err := f.s.SearchText(f.ctx, "zebra squadron", k); err != nil || len(found) != k {
				t.Errorf("SearchText during the re-embedding = %d passages, %v; want %d", len(found), err, k)
				return
			}
			mu.Lock()
			searches[len(v)]++
			mu.Unlock()
		}
	}
	wg.Add(3)
	go reader(func() []float32 { return axisIn(f.s.EmbeddingSpace().Dim, 0) })
	go reader(func() []float32 { return axisIn(f.s.EmbeddingSpace().Dim, 1) })
	go reader(func() []float32 { return axis(2) })
	target := graphrag.EmbeddingSpace{Model: "new-model", Dim: newDim}
	if err := f.s.BeginReembed(f.ctx, target); err != nil {
		t.Fatalf("BeginReembed: %v", err)
	}
	f.stageAll(newVectors(cs), nil, 4)
	if err := f.s.CommitReembed(f.ctx); err != nil {
		t.Errorf("CommitReembed: %v", err)
	}
	// Searches after the swap: a reader's next search (within 5 s on a busy machine).
	for i := 0; i < 500 && !t.Failed(); i++ {
		mu.Lock()
		n := searches[newDim]
		mu.Unlock()
		if n > 0 && i >= 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	if searches[dim] == 0 || searches[newDim] == 0 {
		t.Errorf("searches in the old space %d, in the new %d; want both", searches[dim], searches[newDim])
	}
}
