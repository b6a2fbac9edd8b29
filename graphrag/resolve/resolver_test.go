package resolve_test

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/resolve"
	"github.com/hopwise/hopwise/graphrag/sqlite"
)

// passage is a document of one passage with the names and triples an extraction found in it.
type passage struct {
	file, title, text string
	names             []string
	triples           []graphrag.Triple
}

// recorded extracts each passage's names and triples, as a replayed extraction does.
type recorded map[string]passage

func (r recorded) Extract(_ context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	p := r[c.DocName]
	return graphrag.TriplesExtraction(c, p.names, p.triples), nil
}

// hashEmbedder gives every text a vector of its bytes' hash: searches work, no model runs.
type hashEmbedder struct{}

func (hashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		sum := sha256.Sum256([]byte(t))
		v := make([]float32, 8)
		for j := range v {
			v[j] = float32(sum[j]) + 1
		}
		out[i] = v
	}
	return out, nil
}

var passages = []passage{
	{"midway-iowa.md", "Midway, Floyd County, Iowa", "Midway is an unincorporated community in Floyd County, Iowa.",
		[]string{"Midway", "Floyd County", "Iowa"}, []graphrag.Triple{{Subject: "Midway", Predicate: "located in", Object: "Floyd County"}}},
	{"midway-mississippi.md", "Midway, Copiah County, Mississippi", "Midway is an unincorporated community in Copiah County, Mississippi.",
		[]string{"Midway", "Copiah County", "Mississippi"}, []graphrag.Triple{{Subject: "Midway", Predicate: "located in", Object: "Copiah County"}}},
	{"neeta.md", "Neeta Pateriya", "Neeta Pateriya is a member of the Bharatiya Janata Party (BJP).",
		[]string{"Neeta Pateriya", "Bharatiya Janata Party", "BJP"}, []graphrag.Triple{{Subject: "Neeta Pateriya", Predicate: "member of", Object: "BJP"}}},
	{"chauhan.md", "Prabhatsinh Chauhan", "Prabhatsinh Chauhan is a BJP politician.",
		[]string{"Prabhatsinh Chauhan", "BJP"}, []graphrag.Triple{{Subject: "Prabhatsinh Chauhan", Predicate: "member of", Object: "BJP"}}},
	{"tarski.md", "Tarski's circle-squaring problem", "The problem was posed by Alfred Tarski in 1925; Tarski asked it of discs.",
		[]string{"Alfred Tarski", "Tarski", "1925"}, []graphrag.Triple{{Subject: "Tarski", Predicate: "posed in", Object: "1925"}}},
	{"biden.md", "Joe Biden", "Joe Biden was the 47th vice president of the United States.", []string{"Joe Biden", "United States"},
		[]graphrag.Triple{{Subject: "Joe Biden", Predicate: "was", Object: "former vice president of the United States"}}},
	{"gonzalez.md", "Mariela González", "She ran the marathon in Athens, Greece, in 2004.", []string{"Mariela González", "Athens", "Greece", "2004"},
		[]graphrag.Triple{{Subject: "Mariela González", Predicate: "competed in", Object: "Athens, Greece"},
			{Subject: "Mariela González", Predicate: "competed in", Object: "2004 Summer Olympics"}}},
	{"dot.md", "Overbooking in the US", "The US Department of Transportation sets the caps.", []string{"US Department of Transportation"}, nil},
	{"fares.md", "Fares", "The Department of Transportation adjusts the caps.", []string{"Department of Transportation", "caps"},
		[]graphrag.Triple{{Subject: "Department of Transportation", Predicate: "adjusts", Object: "caps"}}},
}

func ingest(t *testing.T) (*sqlite.Store, *resolve.Resolver) {
	t.Helper()
	return ingestPassages(t, passages)
}

// ingestPassages ingests ps one at a time, in the order given: what the resolver finds depends on what is
// stored.
func ingestPassages(t *testing.T, ps []passage) (*sqlite.Store, *resolve.Resolver) {
	t.Helper()
	rec := recorded{}
	for _, p := range ps {
		rec[p.file] = p
	}
	return ingestWith(t, ps, rec)
}

// ingestWith ingests ps as ingestPassages does, extracted by ex.
func ingestWith(t *testing.T, ps []passage, ex graphrag.ChunkExtractor) (*sqlite.Store, *resolve.Resolver) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 8, EmbedModel: "hash"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ingestInto(t, st, ps, ex)
}

// ingestInto ingests ps into st as ingestPassages does, with a resolver of its own, which has resolved
// nothing before: what it knows of the passages ingested earlier is what st holds.
func ingestInto(t *testing.T, st *sqlite.Store, ps []passage, ex graphrag.ChunkExtractor) *resolve.Resolver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	res := resolve.New(st, hashEmbedder{}, quiet)
	in := graphrag.NewIngester(st, hashEmbedder{}, ex, graphrag.IngestOptions{Workers: 1, ExtractConcurrency: 1, Resolver: res}, quiet)
	defer runIngester(ctx, in)()
	for _, p := range ps {
		doc, _, err := in.Submit(ctx, p.file, strings.NewReader("# "+p.title+"\n\n"+p.text+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := graphrag.WaitDone(ctx, st, map[string]string{doc.ID: p.file}, 10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

func entity(t *testing.T, st *sqlite.Store, name string) (graphrag.Entity, bool) {
	t.Helper()
	es, err := st.Entities(context.Background(), []string{graphrag.NormalizeKey(name)})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		return graphrag.Entity{}, false
	}
	return es[0], true
}

func TestResolverAtIngest(t *testing.T) {
	st, _ := ingest(t)
	ctx := context.Background()

	// homonyms: the second Midway's passage is about another place than the stored Midway's
	if m, ok := entity(t, st, "Midway"); !ok || len(m.DocIDs) != 1 {
		t.Errorf("Midway = %+v, %v; want the Iowa one alone", m, ok)
	}
	other, ok := entity(t, st, "Midway, Copiah County, Mississippi")
	if !ok || other.Name != "Midway, Copiah County, Mississippi" || !slices.Contains(other.Aliases, "Midway") {
		t.Errorf("the Mississippi Midway = %+v, %v; want an entity of its own, also called Midway", other, ok)
	}
	// an abbreviation written out beside it, then the abbreviation alone in another passage
	if _, ok := entity(t, st, "BJP"); ok {
		t.Errorf("BJP is an entity of its own, want it merged into the Bharatiya Janata Party")
	}
	bjp, ok := entity(t, st, "Bharatiya Janata Party")
	if !ok || !slices.Contains(bjp.Aliases, "BJP") || len(bjp.DocIDs) != 2 {
		t.Errorf("Bharatiya Janata Party = %+v, %v; want BJP among its names, in both passages", bjp, ok)
	}
	edges, err := st.Neighborhood(ctx, []string{bjp.Key}, 1, 10)
	if err != nil || len(edges) != 2 {
		t.Errorf("the party's relations %+v, %v; want both memberships", edges, err)
	}
	// a family name in the passage that writes the full name
	if _, ok := entity(t, st, "Tarski"); ok {
		t.Errorf("Tarski is an entity of its own, want it merged into Alfred Tarski")
	}
	merges, err := st.Edits(ctx, graphrag.EditQuery{Kinds: []graphrag.EditKind{graphrag.EditMerge}, Statuses: []graphrag.EditStatus{graphrag.EditApplied}})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, e := range merges {
		if e.By != graphrag.ByResolver || e.Rule == "" || len(e.Evidence) == 0 {
			t.Errorf("merge %+v lacks its provenance", e)
		}
		rules[e.Keys[1]] = e.Rule
	}
	if rules["bjp"] != "abbreviation" || rules["tarski"] != "family name" {
		t.Errorf("merges recorded %v, want bjp by abbreviation and tarski as a family name", rules)
	}
	if t2, ok := entity(t, st, "Alfred Tarski"); !ok || t2.Name != "Alfred Tarski" {
		t.Errorf("Alfred Tarski = %+v, %v; want the full name kept as the name", t2, ok)
	}
	// a relation's end that is a phrase around a name is not that name; a place qualified as the passage
	// says is that place, under its plain name
	for _, name := range []string{"United States", "former vice president of the United States", "2004", "2004 Summer Olympics"} {
		if _, ok := entity(t, st, name); !ok {
			t.Errorf("%q was merged into another entity", name)
		}
	}
	if _, ok := entity(t, st, "Athens, Greece"); ok {
		t.Errorf("Athens, Greece is an entity of its own")
	}
	if a, ok := entity(t, st, "Athens"); !ok || a.Name != "Athens" || !slices.Contains(a.Aliases, "Athens, Greece") {
		t.Errorf("Athens = %+v, %v; want it, also called Athens, Greece", a, ok)
	}
	// not sure: proposed for review, not merged
	if _, ok := entity(t, st, "Department of Transportation"); !ok {
		t.Errorf("Department of Transportation was merged; want it proposed only")
	}
	proposals, err := st.Edits(ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}})
	if err != nil || len(proposals) != 1 || !slices.Equal(proposals[0].Keys, []string{"us department of transportation", "department of transportation"}) {
		t.Errorf("proposals %+v, %v; want (US) Department of Transportation", proposals, err)
	}
}

func TestUndoOfResolverMerge(t *testing.T) {
	st, res := ingest(t)
	ctx := context.Background()
	ed := graphrag.Editor{Store: st}
	merges, err := st.Edits(ctx, graphrag.EditQuery{Keys: []string{"bjp"}, Kinds: []graphrag.EditKind{graphrag.EditMerge}})
	if err != nil || len(merges) != 1 {
		t.Fatalf("merges of bjp = %+v, %v", merges, err)
	}
	if _, err := ed.Undo(ctx, merges[0].ID); err != nil {
		t.Fatal(err)
	}
	bjp, ok := entity(t, st, "BJP")
	if !ok || len(bjp.DocIDs) != 2 {
		t.Errorf("after the undo BJP = %+v, %v; want it back, in both passages", bjp, ok)
	}
	party, _ := entity(t, st, "Bharatiya Janata Party")
	if slices.Contains(party.Aliases, "BJP") {
		t.Errorf("the party is still also called BJP: %q", party.Aliases)
	}
	if _, err := ed.Undo(ctx, merges[0].ID); err == nil {
		t.Errorf("a second undo of the same merge was accepted")
	}
	// the resolver does not merge them again
	c := graphrag.Chunk{ID: "x", DocID: "d", DocTitle: "Another", Text: "a BJP member"}
	x := graphrag.TriplesExtraction(c, []string{"BJP", "Bharatiya Janata Party"}, nil)
	got, err := res.Resolve(ctx, c, x)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entities) != 2 {
		t.Errorf("after the undo the resolver gave %+v, want BJP and the party apart", got.Entities)
	}
}

func TestUserMergeHoldsAgainstReExtraction(t *testing.T) {
	st, res := ingest(t)
	ctx := context.Background()
	ed := graphrag.Editor{Store: st}
	proposals, err := st.Edits(ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}})
	if err != nil || len(proposals) != 1 {
		t.Fatalf("proposals %+v, %v", proposals, err)
	}
	p := proposals[0]
	m, err := ed.Apply(ctx, graphrag.EditRequest{Kind: graphrag.EditMerge, Key: p.Keys[0], Other: p.Keys[1], Proposal: p.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := entity(t, st, "Department of Transportation"); ok {
		t.Errorf("Department of Transportation still an entity after the merge")
	}
	if left, _ := st.Edits(ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}}); len(left) != 0 {
		t.Errorf("the proposal is still open after the merge: %+v", left)
	}
	// a passage is extracted again: the short name still means the merged entity
	c := graphrag.Chunk{ID: graphrag.ChunkID(graphrag.DocumentID(graphrag.ContentHash([]byte("x"))), 0), DocTitle: "Fares"}
	x := graphrag.TriplesExtraction(c, []string{"Department of Transportation", "caps"},
		[]graphrag.Triple{{Subject: "Department of Transportation", Predicate: "adjusts", Object: "caps"}})
	got, err := res.Resolve(ctx, c, x)
	if err != nil {
		t.Fatal(err)
	}
	if k := "us department of transportation"; got.Entities[0].Key != k || got.Relations[0].Source != k {
		t.Errorf("re-extraction resolved to %+v, want it under %q", got, k)
	}
	if _, err := ed.Undo(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if d, ok := entity(t, st, "Department of Transportation"); !ok || len(d.ChunkIDs) != 1 {
		t.Errorf("after the undo Department of Transportation = %+v, %v; want it back with its passage", d, ok)
	}
}

// TestEntityBriefsMatchFullReads: what the resolver reads of stored entities (names, kinds, descriptions,
// aliases, whether a document mentions them, neighbours' names) is what the store's full reads give.
func TestEntityBriefsMatchFullReads(t *testing.T) {
	st, _ := ingest(t)
	n, err := graphragtest.CheckBriefs(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d entities compared", n)
	}
}

// TestMergesDoNotDependOnOrder: BJP alone in one document and written out beside the Bharatiya Janata
// Party in another, and Royal Air Maroc written with and without a space in two more, end as one party
// and one airline under the same keys whichever document comes first. When the passage that writes BJP
// out comes second, the merge it decides reaches the BJP the first stored alone (recorded as a merge of
// its own); the airline keeps the key its names say, not the one stored first. Undoing the merge splits
// BJP off again in both documents.
// orderPassages name BJP alone in one document and beside the Bharatiya Janata Party in another, and Royal
// Air Maroc with and without a space in two more.
var orderPassages = []passage{
	{"chauhan.md", "Prabhatsinh Chauhan", "Prabhatsinh Chauhan is a BJP politician.",
		[]string{"Prabhatsinh Chauhan", "BJP"}, []graphrag.Triple{{Subject: "Prabhatsinh Chauhan", Predicate: "member of", Object: "BJP"}}},
	{"ram.md", "Royal AirMaroc", "Royal AirMaroc flies to Casablanca.", []string{"Royal AirMaroc", "Casablanca"},
		[]graphrag.Triple{{Subject: "Royal AirMaroc", Predicate: "flies to", Object: "Casablanca"}}},
	{"neeta.md", "Neeta Pateriya", "Neeta Pateriya is a member of the Bharatiya Janata Party (BJP).",
		[]string{"Neeta Pateriya", "Bharatiya Janata Party", "BJP"}, []graphrag.Triple{{Subject: "Neeta Pateriya", Predicate: "member of", Object: "BJP"}}},
	{"morocco.md", "Royal Air Maroc", "Royal Air Maroc is the airline of Morocco.", []string{"Royal Air Maroc", "Morocco"},
		[]graphrag.Triple{{Subject: "Royal Air Maroc", Predicate: "airline of", Object: "Morocco"}}},
}

func TestMergesDoNotDependOnOrder(t *testing.T) {
	ps := orderPassages
	reversed := slices.Clone(ps)
	slices.Reverse(reversed)
	var shapes []graphShape
	for _, order := range [][]passage{ps, reversed} {
		st, _ := ingestPassages(t, order)
		shape := shapeOf(t.Context(), t, st)
		shapes = append(shapes, shape)
		keys := shape.keys()
		for _, k := range []string{"bharatiya janata party", "royal air maroc", "prabhatsinh chauhan", "neeta pateriya"} {
			if !slices.Contains(keys, k) {
				t.Errorf("%s first: no entity %q among %q", order[0].file, k, keys)
			}
		}
		for _, k := range []string{"bjp", "royal airmaroc"} {
			if slices.Contains(keys, k) {
				t.Errorf("%s first: %q is an entity of its own (%q)", order[0].file, k, keys)
			}
		}
		party, _ := entity(t, st, "Bharatiya Janata Party")
		if len(party.DocIDs) != 2 || !slices.Contains(party.Aliases, "BJP") {
			t.Errorf("%s first: the party = %+v, want it in both documents, also called BJP", order[0].file, party)
		}
	}
	if !reflect.DeepEqual(shapes[0], shapes[1]) {
		t.Errorf("read in reverse: %s", shapes[1].diff(shapes[0]))
	}

	// the order in which the merge reached back: one merge decided, one reaching back, both undoable
	st, _ := ingestPassages(t, ps)
	ctx := t.Context()
	merges, err := st.Edits(ctx, graphrag.EditQuery{Keys: []string{"bjp"}, Kinds: []graphrag.EditKind{graphrag.EditMerge}})
	if err != nil || len(merges) != 2 {
		t.Fatalf("merges of bjp = %+v, %v; want the one decided and the one reaching back", merges, err)
	}
	for _, m := range merges {
		if m.By != graphrag.ByResolver || m.Rule != "abbreviation" || !slices.Equal(m.Keys, []string{"bharatiya janata party", "bjp"}) {
			t.Errorf("merge %+v, want BJP into the party by abbreviation", m)
		}
	}
	if _, err := (graphrag.Editor{Store: st}).Undo(ctx, merges[len(merges)-1].ID); err != nil {
		t.Fatal(err)
	}
	if bjp, ok := entity(t, st, "BJP"); !ok || len(bjp.DocIDs) != 2 {
		t.Errorf("after the undo BJP = %+v, %v; want it back, in both documents", bjp, ok)
	}
}

// TestMergedNameMovesNoEntity: Tarski merged into Alfred Tarski in one passage, then written beside Jan
// Tarski in another, stays a name of Alfred Tarski. The merge in force sent that passage's Tarski to
// Alfred Tarski's key before the names were compared; a family name going to the fuller name beside it
// would otherwise merge that key, Alfred Tarski and every passage naming him, into Jan Tarski (as the
// MuSiQue bench's U.S. took the United States into "policy of the United States").
func TestMergedNameMovesNoEntity(t *testing.T) {
	ps := []passage{passages[4],
		{"jan.md", "Jan Tarski", "Jan Tarski is the son of Tarski.", []string{"Jan Tarski", "Tarski"},
			[]graphrag.Triple{{Subject: "Jan Tarski", Predicate: "son of", Object: "Tarski"}}}}
	st, _ := ingestPassages(t, ps)
	alfred, ok := entity(t, st, "Alfred Tarski")
	if !ok || len(alfred.DocIDs) != 2 {
		t.Errorf("Alfred Tarski = %+v, %v; want him in both passages", alfred, ok)
	}
	if jan, ok := entity(t, st, "Jan Tarski"); !ok || len(jan.DocIDs) != 1 {
		t.Errorf("Jan Tarski = %+v, %v; want him in his passage alone", jan, ok)
	}
	merges, err := st.Edits(t.Context(), graphrag.EditQuery{Keys: []string{"alfred tarski"}, Kinds: []graphrag.EditKind{graphrag.EditMerge}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range merges {
		if m.Keys[0] != "alfred tarski" {
			t.Errorf("merge %q (%s): Alfred Tarski merged away", m.Keys, m.Rule)
		}
	}
}
