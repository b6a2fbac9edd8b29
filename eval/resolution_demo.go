package eval

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/resolve"
)

// Methods of ResolveDemoPairs.
const (
	DemoNamesOnly   = "resolver at ingest, candidates by name"
	DemoWithVectors = "resolver at ingest, candidates by name and by meaning"
)

// ResolveDemoPairs measures the resolver as it runs at ingest, candidates and all, on the labelled demo
// pairs: the demo documents of dir are ingested, in name order one passage at a time, through the real
// ingester, store and resolver, with an extraction that finds in each passage the labelled demo mentions of
// its document (with their kinds and descriptions) placed there: a mention where its name is written, or,
// for a name the document does not write ("München", "Deutsche Lufthansa AG"), in the passage of its
// document whose words its description shares most. A pair is merged when both mentions end in one entity.
// embed embeds the passages and the names with descriptions; byMeaning says whether the resolver looks for
// candidates among the passages near a name's description as well as by its words (without, its
// verdicts still compare the descriptions' vectors). store is an empty store.
func ResolveDemoPairs(ctx context.Context, pairs []ResolutionPair, dir string, embed graphrag.Embedder, byMeaning bool,
	store graphrag.Store) (MergeScore, error) {
	method := DemoNamesOnly
	var seen resolve.Store = namesOnly{store}
	if byMeaning {
		method, seen = DemoWithVectors, store
	}
	var demo []ResolutionPair
	sides := map[string][]PairSide{} // document name -> its mentions, each (name) once
	for _, p := range pairs {
		if p.Source != "demo" {
			continue
		}
		demo = append(demo, p)
		for _, s := range []PairSide{p.A, p.B} {
			if !slices.ContainsFunc(sides[s.Doc], func(o PairSide) bool { return o.Name == s.Name }) {
				sides[s.Doc] = append(sides[s.Doc], s)
			}
		}
	}
	quiet := slog.New(slog.DiscardHandler)
	ex := &demoExtractor{store: store, sides: sides}
	in := graphrag.NewIngester(store, embed, ex, graphrag.IngestOptions{Workers: 1, ExtractConcurrency: 1,
		Resolver: resolve.New(seen, embed, quiet)}, quiet)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	defer func() { stop(); <-done }()
	files := make([]string, 0, len(sides))
	for f := range sides {
		files = append(files, f)
	}
	slices.Sort(files)
	docIDs := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return MergeScore{}, fmt.Errorf("eval: demo document: %w", err)
		}
		doc, _, err := in.Submit(ctx, f, strings.NewReader(string(b)))
		if err != nil {
			return MergeScore{}, fmt.Errorf("eval: ingest %s: %w", f, err)
		}
		docIDs[f] = doc.ID
		// one document at a time, in order: what the resolver finds depends on what is stored
		if err := graphrag.WaitDone(ctx, store, map[string]string{doc.ID: f}, 10*time.Millisecond); err != nil {
			return MergeScore{}, err
		}
	}
	if ex.err != nil {
		return MergeScore{}, ex.err
	}
	score := MergeScore{Method: method, Source: "demo"}
	for _, p := range demo {
		a, err := entityOf(ctx, store, p.A, docIDs[p.A.Doc])
		if err != nil {
			return MergeScore{}, err
		}
		b, err := entityOf(ctx, store, p.B, docIDs[p.B.Doc])
		if err != nil {
			return MergeScore{}, err
		}
		score.add(p, a != "" && a == b, false)
	}
	return score.done(), nil
}

// namesOnly is a store whose passages no vector finds: the resolver's candidates come from names alone.
type namesOnly struct{ graphrag.Store }

func (namesOnly) SearchVector(context.Context, []float32, int) ([]graphrag.ScoredChunk, error) {
	return nil, nil
}

// entityOf is the key of the entity a mention ended in: the one of its document that has its name among
// its names.
func entityOf(ctx context.Context, store graphrag.Store, s PairSide, docID string) (string, error) {
	found, err := store.SearchEntities(ctx, s.Name, 50)
	if err != nil {
		return "", fmt.Errorf("eval: find %q: %w", s.Name, err)
	}
	for _, e := range found {
		if slices.Contains(e.DocIDs, docID) && slices.Contains(e.Aliases, s.Name) {
			return e.Key, nil
		}
	}
	return "", nil
}

// demoExtractor finds the labelled mentions of a passage's document placed in it, each related to the
// others of the passage.
type demoExtractor struct {
	store graphrag.Store
	sides map[string][]PairSide
	err   error
}

func (d *demoExtractor) Extract(ctx context.Context, c graphrag.Chunk) (graphrag.Extraction, error) {
	chunks, err := d.store.DocumentChunks(ctx, c.DocID)
	if err != nil {
		d.err = err
		return graphrag.Extraction{}, err
	}
	x := graphrag.Extraction{ChunkID: c.ID}
	for _, s := range d.sides[c.DocName] {
		if placeOf(s, chunks) != c.Ordinal {
			continue
		}
		x.Entities = append(x.Entities, graphrag.Entity{Key: graphrag.NormalizeKey(s.Name), Name: s.Name, Type: s.Type,
			Description: s.Description, Aliases: []string{s.Name}, ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}})
	}
	for i, a := range x.Entities {
		for _, b := range x.Entities[i+1:] {
			if a.Key == b.Key {
				continue
			}
			x.Relations = append(x.Relations, graphrag.Relation{ID: graphrag.RelationID(a.Key, "RELATED_TO", b.Key),
				Source: a.Key, Target: b.Key, SourceName: a.Name, TargetName: b.Name, Type: "RELATED_TO",
				ChunkIDs: []string{c.ID}, DocIDs: []string{c.DocID}})
		}
	}
	return graphrag.Rekey(x, nil, nil), nil // folds mentions of one key
}

// placeOf is the ordinal of the passage a mention is placed in: the first that writes its name, else the
// one whose words its description shares most (the first of those).
func placeOf(s PairSide, chunks []graphrag.Chunk) int {
	k := " " + graphrag.NormalizeKey(s.Name) + " "
	for _, c := range chunks {
		if strings.Contains(" "+graphrag.NormalizeKey(c.Text)+" ", k) {
			return c.Ordinal
		}
	}
	best, most := 0, -1
	words := strings.Fields(graphrag.NormalizeKey(s.Description))
	for _, c := range chunks {
		text := " " + graphrag.NormalizeKey(c.Text) + " "
		n := 0
		for _, w := range words {
			if len(w) > 3 && strings.Contains(text, " "+w+" ") {
				n++
			}
		}
		if n > most {
			best, most = c.Ordinal, n
		}
	}
	return best
}
