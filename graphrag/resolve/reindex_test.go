package resolve_test

import (
	"context"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// firstNames extracts only the first name of each passage, with no relations: the graph an older model
// left, which the re-extraction replaces.
type firstNames map[string]passage

func (f firstNames) Extract(_ context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	p := f[c.DocName]
	return graphrag.TriplesExtraction(c, p.names[:1], nil), nil
}

// reindexShape ingests ps in the order given, extracted by an older model (firstNames) and resolved, then
// extracts the graph again with the recorded extractions (one passage at a time, in the store's order,
// which is the order of ingest) resolved by the same resolver, as `hopwise reindex --graph` does, and
// returns the shape of the graph committed.
func reindexShape(t *testing.T, ps []passage) graphShape {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	rec, old := recorded{}, firstNames{}
	for _, p := range ps {
		rec[p.file], old[p.file] = p, p
	}
	st, res := ingestWith(t, ps, old)
	r := graphrag.NewReindexer(st, hashEmbedder{}, st.EmbeddingSpace(), slog.New(slog.DiscardHandler)).
		WithGraph(graphrag.GraphReindex{Extractor: rec, Resolver: res, Embed: hashEmbedder{}, Model: "newer", Concurrency: 1})
	if err := r.Run(ctx, graphrag.ReindexOptions{Graph: true}, nil); err != nil {
		t.Fatal(err)
	}
	if party, ok := entity(t, st, "Bharatiya Janata Party"); !ok || party.Name != "Bharatiya Janata Party" || !slices.Contains(party.Aliases, "BJP") {
		t.Errorf("re-extracted with %s first: the party = %+v, %v; want it named so, also called BJP", ps[0].file, party, ok)
	}
	return shapeOf(ctx, t, st)
}

// TestReindexGraphResolvesAsIngest: extracting the graph again (hopwise reindex --graph) with a model that
// writes BJP alone in one passage and beside the Bharatiya Janata Party in another, and Royal Air Maroc
// with and without a space, ends with the graph an ingest with that model ends with, in either order of
// the passages, the party named so: a merge decided on a later passage reaches the passages staged before
// it, as an ingest's reaches the entities stored before (without it, the re-extraction that read BJP alone
// first committed BJP apart, and the kept entity took the name of the passage committed first).
func TestReindexGraphResolvesAsIngest(t *testing.T) {
	ps := orderPassages
	st, _ := ingestPassages(t, ps)
	want := shapeOf(t.Context(), t, st)
	for _, k := range []string{"bharatiya janata party", "royal air maroc"} {
		if !slices.Contains(want.keys(), k) {
			t.Fatalf("the ingest gave no %q: %q", k, want.keys())
		}
	}
	reversed := slices.Clone(ps)
	slices.Reverse(reversed)
	for _, order := range [][]passage{ps, reversed} {
		got := reindexShape(t, order)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("re-extracted with %s first: %s", order[0].file, got.diff(want))
		}
	}
}
