package resolve_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/resolve"
	"github.com/hopwise/hopwise/graphrag/sqlite"
)

// vocabulary are the dimensions of wordsEmbedder: a text's vector counts these words in it, so texts about
// one thing are near and texts about others are not, as a real model's are, without a model.
var vocabulary = []string{"bavaria", "germany", "capital", "festival", "planet", "sun", "metal", "thermometer",
	"orbit", "glass", "liquid"}

type wordsEmbedder struct{}

func (wordsEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(vocabulary)+1)
		for j, w := range vocabulary {
			v[j] = float32(strings.Count(strings.ToLower(t), w))
		}
		v[len(vocabulary)] = 0.2 // no text is the zero vector
		out[i] = v
	}
	return out, nil
}

// describedPassage is a document of one passage and what an extraction found in it: entities with kinds
// and descriptions, the first related to the others.
type describedPassage struct {
	file, title, text string
	entities          []graphrag.Entity
}

type describedExtractor map[string]describedPassage

func (d describedExtractor) Extract(_ context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	p := d[c.DocName]
	x := graphrag.Extraction{ChunkID: c.ID}
	for _, e := range p.entities {
		e.Key, e.ChunkIDs, e.DocIDs = graphrag.NormalizeKey(e.Name), []string{c.ID}, []string{c.DocID}
		e.Aliases = []string{e.Name}
		x.Entities = append(x.Entities, e)
	}
	for _, o := range x.Entities[1:] {
		src := x.Entities[0]
		x.Relations = append(x.Relations, graphrag.Relation{ID: graphrag.RelationID(src.Key, "RELATED_TO", o.Key),
			Source: src.Key, Target: o.Key, SourceName: src.Name, TargetName: o.Name, Type: "RELATED_TO",
			ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}})
	}
	return x, nil
}

// ingestDescribed ingests the passages one after the other, resolving with embed (nil: names only).
func ingestDescribed(t *testing.T, embed graphrag.Embedder, passages ...describedPassage) *sqlite.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"),
		sqlite.Options{EmbedDim: len(vocabulary) + 1, EmbedModel: "words"}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ex := describedExtractor{}
	for _, p := range passages {
		ex[p.file] = p
	}
	in := graphrag.NewIngester(st, wordsEmbedder{}, ex, graphrag.IngestOptions{Workers: 1, ExtractConcurrency: 1,
		Resolver: resolve.New(st, embed, quiet)}, quiet)
	defer runIngester(ctx, in)()
	for _, p := range passages {
		doc, _, err := in.Submit(ctx, p.file, strings.NewReader("# "+p.title+"\n\n"+p.text+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := graphrag.WaitDone(ctx, st, map[string]string{doc.ID: p.file}, 10*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

var (
	munichPassage = describedPassage{"munich.md", "Munich", "Munich is the capital of Bavaria in Germany.", []graphrag.Entity{
		{Name: "Munich", Type: "city", Description: "capital of Bavaria in Germany"},
		{Name: "Bavaria", Type: "state", Description: "German state"},
		{Name: "Germany", Type: "country", Description: "country in Europe"}}}
	muenchenPassage = describedPassage{"oktoberfest.md", "Oktoberfest", "München, the Bavarian capital, holds the Oktoberfest festival.",
		[]graphrag.Entity{
			{Name: "München", Type: "city", Description: "capital of Bavaria, Germany, where the festival is held"},
			{Name: "Oktoberfest", Type: "event", Description: "festival held in München"}}}
	deutschlandPassage = describedPassage{"handbook.md", "Handbook", "Nexa AI GmbH is registered in Deutschland.",
		[]graphrag.Entity{
			{Name: "Nexa AI GmbH", Type: "company", Description: "company registered in Deutschland"},
			{Name: "Deutschland", Type: "country", Description: "country in Europe, Germany"}}}
)

// TestCandidatesByMeaning: a name no word of which finds the other ("München" for Munich) becomes a
// candidate through the passages near its description, and is merged when its spelling and kind agree;
// a name that only meaning joins ("Deutschland" for Germany) is proposed for review, not merged.
func TestCandidatesByMeaning(t *testing.T) {
	ctx := context.Background()
	st := ingestDescribed(t, wordsEmbedder{}, munichPassage, muenchenPassage, deutschlandPassage)
	if _, ok := entity(t, st, "München"); ok {
		t.Errorf("München is an entity of its own, want it merged into Munich")
	}
	m, ok := entity(t, st, "Munich")
	if !ok || !slices.Contains(m.Aliases, "München") || len(m.DocIDs) != 2 {
		t.Errorf("Munich = %+v, %v; want it also called München, in both documents", m, ok)
	}
	merges, err := st.Edits(ctx, graphrag.EditQuery{Keys: []string{"munchen"}, Kinds: []graphrag.EditKind{graphrag.EditMerge}})
	if err != nil || len(merges) != 1 {
		t.Fatalf("merges of München: %+v, %v", merges, err)
	}
	if !slices.ContainsFunc(merges[0].Evidence, func(s string) bool { return strings.Contains(s, "found by meaning") }) {
		t.Errorf("the merge's evidence %q does not say it was found by meaning", merges[0].Evidence)
	}
	if _, ok := entity(t, st, "Deutschland"); !ok {
		t.Errorf("Deutschland was merged; only meaning joins it to Germany, want it proposed")
	}
	proposals, err := st.Edits(ctx, graphrag.EditQuery{Statuses: []graphrag.EditStatus{graphrag.EditProposed}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(proposals, func(e graphrag.Edit) bool { return slices.Equal(e.Keys, []string{"germany", "deutschland"}) }) {
		t.Errorf("proposals %+v; want Germany and Deutschland among them", proposals)
	}

	// without vectors nothing finds München from Munich
	st = ingestDescribed(t, nil, munichPassage, muenchenPassage)
	if _, ok := entity(t, st, "München"); !ok {
		t.Errorf("without vectors München was merged: the candidate must have come from somewhere else")
	}
}

var (
	mercuryPlanet = describedPassage{"planets.md", "The inner planets", "Mercury is the planet closest to the Sun, smaller than Venus.",
		[]graphrag.Entity{
			{Name: "Mercury", Type: "planet", Description: "the planet closest to the sun"},
			{Name: "Sun", Type: "star", Description: "the star at the centre of the solar system"},
			{Name: "Venus", Type: "planet", Description: "the second planet from the sun"}}}
	mercuryMetal = describedPassage{"thermometers.md", "Thermometers", "Mercury is a metal, liquid at room temperature, held in glass thermometers.",
		[]graphrag.Entity{
			{Name: "Mercury", Type: "element", Description: "a metal that is liquid at room temperature"},
			{Name: "Thermometer", Type: "device", Description: "glass thermometer that holds the metal"},
			{Name: "Glass", Type: "material", Description: "what a thermometer is made of"}}}
	mercurySpill = describedPassage{"spills.md", "Spills", "A broken thermometer spills mercury, a liquid metal; Spill kits help.",
		[]graphrag.Entity{
			{Name: "Mercury", Type: "element", Description: "a toxic liquid metal of old thermometers"},
			{Name: "Thermometer", Type: "device", Description: "broken thermometer"},
			{Name: "Spill kit", Type: "product", Description: "kit to clean a spill of metal"}}}
	mercuryOrbit = describedPassage{"orbits.md", "Orbits", "Mercury orbits the Sun in 88 days, faster than Venus.",
		[]graphrag.Entity{
			{Name: "Mercury", Type: "planet", Description: "planet whose orbit of the sun takes 88 days"},
			{Name: "Sun", Type: "star", Description: "the star Mercury orbits"},
			{Name: "Venus", Type: "planet", Description: "slower planet"}}}
)

// TestHomonymsByDescriptionsAndNeighbours: the same name for two things, with no title to say so, is kept
// apart when the descriptions and the names around them disagree (Mercury the planet, Mercury the metal);
// a later mention goes to the one it agrees with.
func TestHomonymsByDescriptionsAndNeighbours(t *testing.T) {
	ctx := context.Background()
	st := ingestDescribed(t, wordsEmbedder{}, mercuryPlanet, mercuryMetal, mercurySpill, mercuryOrbit)
	planet, ok := entity(t, st, "Mercury")
	if !ok || planet.Type != "planet" || len(planet.DocIDs) != 2 {
		t.Errorf("Mercury = %+v, %v; want the planet, of both passages about it", planet, ok)
	}
	metal, ok := entity(t, st, "Mercury (element)")
	if !ok || !slices.Contains(metal.Aliases, "Mercury") || len(metal.DocIDs) != 2 {
		t.Errorf("Mercury (element) = %+v, %v; want the metal, also called Mercury, of both passages about it", metal, ok)
	}
	distinct, err := st.Edits(ctx, graphrag.EditQuery{Keys: []string{"mercury"}, Kinds: []graphrag.EditKind{graphrag.EditDistinct}})
	if err != nil || len(distinct) == 0 {
		t.Fatalf("distinct pairs of mercury: %+v, %v", distinct, err)
	}
	if d := distinct[0]; d.By != graphrag.ByResolver || !strings.HasPrefix(d.Rule, "homonym") || len(d.Evidence) < 2 {
		t.Errorf("distinct pair %+v lacks its provenance", d)
	}

	// the same passages without vectors: the name alone cannot tell, and they stay one entity
	st = ingestDescribed(t, nil, mercuryPlanet, mercuryMetal)
	if m, ok := entity(t, st, "Mercury"); !ok || len(m.DocIDs) != 2 {
		t.Errorf("without vectors Mercury = %+v, %v; want one entity of both passages", m, ok)
	}
}

func TestHomonymScore(t *testing.T) {
	planet := resolve.Mention{Name: "Mercury", Type: "planet", Description: "planet", Docs: []string{"a"},
		Context: []string{"Sun", "Venus"}, Vector: []float32{1, 0}}
	metal := resolve.Mention{Name: "Mercury", Type: "element", Description: "metal", Docs: []string{"b"},
		Context: []string{"Thermometer", "Glass"}, Vector: []float32{0, 1}}
	if _, apart := resolve.Homonym(planet, metal); !apart {
		t.Errorf("the planet and the metal are not kept apart")
	}
	if d := resolve.Score(planet, metal); d.Verdict != resolve.Distinct {
		t.Errorf("Score of the planet and the metal = %s (%s)", d.Verdict, d.Rule)
	}
	shared := metal
	shared.Context = []string{"Sun", "Thermometer"}
	if _, apart := resolve.Homonym(planet, shared); apart {
		t.Errorf("a neighbour in common is no sign of two things")
	}
	oneDoc := metal
	oneDoc.Docs = []string{"a"}
	if _, apart := resolve.Homonym(planet, oneDoc); apart {
		t.Errorf("one document naming both is no sign of two things")
	}
	alike := metal
	alike.Type, alike.Vector = "planet", []float32{1, 0.1}
	if _, apart := resolve.Homonym(planet, alike); apart {
		t.Errorf("descriptions alike are no sign of two things")
	}
	bare := metal
	bare.Context = []string{"Thermometer"}
	if _, apart := resolve.Homonym(planet, bare); apart {
		t.Errorf("one name around it says too little of its neighbourhood")
	}
}
