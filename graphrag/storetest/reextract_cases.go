package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// The re-extraction cases run in the Reembed group (the re-index of the stores), so the suite's list of
// groups, which other work changes too, stays as it is.
func init() { reindexCases = append(reindexCases, reextractCases...) }

var reextractCases = []testCase{
	{"a re-extraction of the graph is read only once committed, then alone", testReextractCommit},
	{"BeginReextract again keeps what was staged, another model drops it; staging needs one begun", testReextractBeginAgain},
	{"edits made during a re-extraction and passages an ingest extracted meanwhile hold at the commit", testReextractEditsAndIngest},
	{"readers during a re-extraction's commit see the old graph or the new, never a mix, and a pair of reads across it sees the generation change", testReextractReaders},
}

// reextractFixture is a finished document of three passages: Delhi is 5,921 km from Munich in the first
// (a fact with a vector), Lufthansa flies to Delhi in the second, and the third's extraction failed.
type reextractFixture struct {
	doc                           graphrag.Document
	cs                            []graphrag.Chunk
	munich, delhi, lh, bavaria    graphrag.Entity
	distance, flies, flight, inBy graphrag.Relation
}

func newReextractFixture(f *fixture) reextractFixture {
	f.t.Helper()
	x := reextractFixture{doc: f.doc("travel.txt", "travel")}
	x.cs = f.chunks(x.doc, "Delhi is 5,921 km from Munich.", "Lufthansa flies to Delhi.", "Munich is in Bavaria.")
	f.embedAll(x.cs)
	x.munich, x.delhi = ent("Munich", "CITY", "city"), ent("Delhi", "CITY", "city")
	x.lh, x.bavaria = ent("Lufthansa", "AIRLINE", "airline"), ent("Bavaria", "REGION", "German state")
	x.distance = rel(x.delhi, "DISTANCE_FROM", x.munich, map[string]any{"distance_km": 5921})
	x.distance.Embedding = axis(7)
	x.flies = rel(x.lh, "FLIES_TO", x.delhi, nil)
	x.flight = rel(x.munich, "FLIGHT_TO", x.delhi, map[string]any{"distance_km": 5921})
	x.flight.Embedding = axis(6)
	x.inBy = rel(x.munich, "IN", x.bavaria, nil)
	f.extract(x.cs[0].ID, []graphrag.Entity{x.delhi, x.munich}, x.distance)
	f.extract(x.cs[1].ID, []graphrag.Entity{x.lh, x.delhi}, x.flies)
	if err := f.s.MarkChunkFailed(f.ctx, x.cs[2].ID, "entity extraction failed: test"); err != nil {
		f.t.Fatal(err)
	}
	f.done(x.doc.ID)
	return x
}

// done marks a document's job done.
func (f *fixture) done(id string) {
	f.t.Helper()
	if err := f.s.SetDocumentStatus(f.ctx, id, graphrag.StatusDone, "", graphrag.DocumentMeta{}); err != nil {
		f.t.Fatal(err)
	}
}

// newExtraction is the second model's extraction of the first passage (Munich has a flight to Delhi).
func (x reextractFixture) newExtraction() graphrag.Extraction {
	return graphrag.Extraction{ChunkID: x.cs[0].ID, Entities: []graphrag.Entity{x.munich, x.delhi}, Relations: []graphrag.Relation{x.flight}}
}

func (f *fixture) reextractState() graphrag.ReextractState {
	f.t.Helper()
	st, err := f.s.ReextractState(f.ctx)
	if err != nil {
		f.t.Fatalf("ReextractState: %v", err)
	}
	return st
}

func (f *fixture) beginReextract(model string) {
	f.t.Helper()
	if err := f.s.BeginReextract(f.ctx, model, f.s.EmbeddingSpace()); err != nil {
		f.t.Fatalf("BeginReextract(%s): %v", model, err)
	}
}

func (f *fixture) stageReextraction(x graphrag.Extraction, keep bool) {
	f.t.Helper()
	if err := f.s.StageReextraction(f.ctx, x, keep); err != nil {
		f.t.Fatalf("StageReextraction(%s, keep %v): %v", x.ChunkID, keep, err)
	}
}

// relationTypes lists the types of the relations around keys, sorted.
func (f *fixture) relationTypes(keys ...string) []string {
	f.t.Helper()
	var out []string
	for _, e := range f.neighborhood(keys, 1, 100) {
		out = append(out, e.Type)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func testReextractCommit(t *testing.T, f *fixture) {
	x := newReextractFixture(f)
	old := f.stats()
	f.beginReextract("model-2")
	st := f.reextractState()
	if st.Model != "model-2" || st.Chunks != 3 || st.Staged != 0 || st.Space != f.s.EmbeddingSpace() || st.Since.IsZero() {
		t.Fatalf("ReextractState after BeginReextract = %+v, want model-2 with 3 passages to do", st)
	}
	todo, err := f.s.ReextractTodo(f.ctx, 10)
	if err != nil || !slices.Equal(chunkIDs(todo), chunkIDs(x.cs)) {
		t.Fatalf("ReextractTodo = %v, %v; want the three passages, the failed one too", chunkIDs(todo), err)
	}
	if todo[0].Text != x.cs[0].Text || todo[0].DocName != "travel.txt" || todo[0].DocID != x.doc.ID {
		t.Errorf("ReextractTodo's first passage = %+v, want its text and document", todo[0])
	}
	f.stageReextraction(x.newExtraction(), false)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[1].ID}, true)
	if todo, err := f.s.ReextractTodo(f.ctx, 10); err != nil || !slices.Equal(chunkIDs(todo), []string{x.cs[2].ID}) {
		t.Errorf("ReextractTodo after two staged = %v, %v; want the third passage", chunkIDs(todo), err)
	}
	wantErr(t, "CommitReextract with a passage to do", f.s.CommitReextract(f.ctx), graphrag.ErrReextractIncomplete)
	if st := f.reextractState(); st.Staged != 2 || st.Kept != 1 {
		t.Errorf("ReextractState with two staged, one kept = %+v", st)
	}
	// Nothing staged is read before the commit.
	f.wantStats("while staged", old)
	if got := f.relationTypes(x.delhi.Key); !slices.Equal(got, []string{"DISTANCE_FROM", "FLIES_TO"}) {
		t.Errorf("relations around Delhi before the commit = %v, want the old graph's", got)
	}
	if es, _ := f.s.Entities(f.ctx, []string{x.bavaria.Key}); len(es) != 0 {
		t.Errorf("an entity only staged is found before the commit: %+v", es)
	}

	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[2].ID, Entities: []graphrag.Entity{x.munich, x.bavaria},
		Relations: []graphrag.Relation{x.inBy}}, false)
	if err := f.s.CommitReextract(f.ctx); err != nil {
		t.Fatalf("CommitReextract: %v", err)
	}
	// The first and third passages have their new graph, the second kept its own; the old fact is gone.
	f.wantStats("after the commit", graphrag.Stats{Documents: 1, Chunks: 3, Embedded: 3, Entities: 4, Relations: 3, Mentions: 6})
	if got := f.relationTypes(x.delhi.Key, x.munich.Key); !slices.Equal(got, []string{"FLIES_TO", "FLIGHT_TO", "IN"}) {
		t.Errorf("relations after the commit = %v, want FLIES_TO (kept), FLIGHT_TO and IN (new)", got)
	}
	if got := f.entity(x.delhi.Key); !sameSet(got.ChunkIDs, []string{x.cs[0].ID, x.cs[1].ID}) {
		t.Errorf("Delhi after the commit is mentioned by %v, want the first two passages", got.ChunkIDs)
	}
	if got := f.entity(x.bavaria.Key); !sameSet(got.ChunkIDs, []string{x.cs[2].ID}) {
		t.Errorf("Bavaria after the commit is mentioned by %v, want the third passage", got.ChunkIDs)
	}
	if d := f.document(x.doc.ID); d.Relations != 3 {
		t.Errorf("the document counts %d relations after the commit, want 3", d.Relations)
	}
	cs, err := f.s.DocumentChunks(f.ctx, x.doc.ID)
	if err != nil || cs[2].Status != graphrag.ChunkExtracted || cs[2].Error != "" {
		t.Errorf("the failed passage after its new extraction = %+v, %v; want extracted without its error", cs[2], err)
	}
	if st := f.reextractState(); st.Model != "" || st.Staged != 0 || st.Chunks != 3 {
		t.Errorf("ReextractState after the commit = %+v, want none under way", st)
	}
	// The new fact keeps its vector: it is near its own.
	sg, err := f.s.Subgraph(f.ctx, graphrag.SubgraphQuery{Keys: []string{x.munich.Key}, Vectors: [][]float32{axis(6)}, PerEntity: 5, MaxRelations: 10})
	if err != nil || sg.Near[x.flight.ID] < 0.99 {
		t.Errorf("Subgraph near the new fact's vector = %v, %v; want FLIGHT_TO at 1", sg.Near, err)
	}
	if err := f.s.CommitReextract(f.ctx); err == nil {
		t.Errorf("CommitReextract with no re-extraction begun succeeded")
	}
}

func testReextractBeginAgain(t *testing.T, f *fixture) {
	x := newReextractFixture(f)
	if err := f.s.StageReextraction(f.ctx, x.newExtraction(), false); err == nil {
		t.Errorf("StageReextraction without a re-extraction begun succeeded")
	}
	f.beginReextract("model-2")
	f.stageReextraction(x.newExtraction(), false)
	f.beginReextract("model-2")
	if st := f.reextractState(); st.Staged != 1 {
		t.Errorf("after BeginReextract again with the same model %d staged, want 1", st.Staged)
	}
	f.beginReextract("model-3")
	if st := f.reextractState(); st.Staged != 0 || st.Model != "model-3" {
		t.Errorf("after BeginReextract with another model = %+v, want model-3 with nothing staged", st)
	}
	bad := x.newExtraction()
	bad.Relations[0].Embedding = []float32{1, 0}
	wantErr(t, "StageReextraction of a fact vector of another dimension", f.s.StageReextraction(f.ctx, bad, false), graphrag.ErrDimension)
	if err := f.s.BeginReextract(f.ctx, "", f.s.EmbeddingSpace()); err == nil {
		t.Errorf("BeginReextract without a model succeeded")
	}
}

func testReextractEditsAndIngest(t *testing.T, f *fixture) {
	x := newReextractFixture(f)
	f.beginReextract("model-2")
	f.stageReextraction(x.newExtraction(), false)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[1].ID}, true)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[2].ID}, true)
	// A person renames Munich while the re-extraction runs: the staged passage still says Munich.
	f.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditRename, Keys: []string{x.munich.Key}, Name: "München", By: "user"},
		[]string{x.munich.Key}, func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanRename(s, x.munich.Key, "München")
		})
	// A document ingested meanwhile is extracted with the configured model: it is not extracted again.
	d := f.doc("more.txt", "more")
	more := f.chunks(d, "Lufthansa is based in Cologne.")
	f.embedAll(more)
	cologne := ent("Cologne", "CITY", "city")
	f.extract(more[0].ID, []graphrag.Entity{x.lh, cologne}, rel(x.lh, "BASED_IN", cologne, nil))
	f.done(d.ID)
	if todo, err := f.s.ReextractTodo(f.ctx, 10); err != nil || len(todo) != 0 {
		t.Errorf("ReextractTodo after an ingest during the re-extraction = %v, %v; want none", chunkIDs(todo), err)
	}
	if err := f.s.CommitReextract(f.ctx); err != nil {
		t.Fatalf("CommitReextract: %v", err)
	}
	m := f.entity(x.munich.Key)
	if m.Name != "München" || !slices.Contains(m.Aliases, "Munich") {
		t.Errorf("Munich after the commit = %q with aliases %v, want the rename kept (München, alias Munich)", m.Name, m.Aliases)
	}
	if got := f.relationTypes(x.lh.Key); !slices.Equal(got, []string{"BASED_IN", "FLIES_TO"}) {
		t.Errorf("Lufthansa's relations after the commit = %v, want the ingested BASED_IN and the kept FLIES_TO", got)
	}
}

func testReextractReaders(t *testing.T, f *fixture) {
	x := newReextractFixture(f)
	f.beginReextract("model-2")
	f.stageReextraction(x.newExtraction(), false)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[1].ID}, true)
	f.stageReextraction(graphrag.Extraction{ChunkID: x.cs[2].ID}, true)
	oldGraph, newGraph := []string{"DISTANCE_FROM", "FLIES_TO"}, []string{"FLIES_TO", "FLIGHT_TO"}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]int{}
	straddled := 0
	// read returns the type that tells the graphs apart (FLIES_TO for the old, FLIGHT_TO for the new).
	read := func() (string, bool) {
		edges, err := f.s.Neighborhood(f.ctx, []string{x.delhi.Key}, 1, 100)
		var types []string
		for _, e := range edges {
			types = append(types, e.Type)
		}
		slices.Sort(types)
		if err != nil || !slices.Equal(types, oldGraph) && !slices.Equal(types, newGraph) {
			t.Errorf("Neighborhood(Delhi) during the commit = %v, %v; want the old graph's or the new one's", types, err)
			return "", false
		}
		return types[1], true
	}
	gen := func() (uint64, bool) {
		g, err := f.s.Generation(f.ctx)
		if err != nil {
			t.Errorf("Generation during the commit: %v", err)
		}
		return g, err == nil
	}
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Two reads between two readings of the generation, as a retrieval pass makes them: when
				// the reads found different graphs, the commit came between them and the generation says so.
				g1, ok1 := gen()
				a, ok2 := read()
				b, ok3 := read()
				g2, ok4 := gen()
				if !ok1 || !ok2 || !ok3 || !ok4 {
					return
				}
				mu.Lock()
				seen[a]++
				seen[b]++
				if a != b {
					straddled++
				}
				mu.Unlock()
				if a != b && g1 == g2 {
					t.Errorf("two reads found the %s graph, then the %s one, and the generation read around them was %d both times; want it changed by the commit",
						a, b, g1)
					return
				}
			}
		}()
	}
	waitSeen := func(typ string) {
		for range 5000 { // within 5 s
			mu.Lock()
			n := seen[typ]
			mu.Unlock()
			if n > 0 || t.Failed() {
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitSeen("FLIES_TO") // a read of the old graph first
	before, _ := gen()
	if err := f.s.CommitReextract(f.ctx); err != nil {
		t.Errorf("CommitReextract: %v", err)
	}
	if after, _ := gen(); after == before {
		t.Errorf("Generation after the commit = %d, as before it", after)
	}
	waitSeen("FLIGHT_TO")
	close(stop)
	wg.Wait()
	if seen["FLIES_TO"] == 0 || seen["FLIGHT_TO"] == 0 {
		t.Errorf("reads found the old graph %d times and the new %d times, want both", seen["FLIES_TO"], seen["FLIGHT_TO"])
	}
	t.Logf("reads: %v; pairs of reads across the commit: %d", seen, straddled)
}
