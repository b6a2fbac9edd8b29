package storebench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// The synthetic corpus: documents of chunksPerDoc chunks; each chunk is 80 words drawn by a Zipf law from
// a seeded vocabulary, naming three entities (Zipf-distributed, so a few become hubs with thousands of
// relations) joined by two relations, as an extraction model would report them. Vectors are llmtest's
// hashing embeddings of the text, so that queries embedded the same way find related chunks.
const (
	chunksPerDoc   = 100
	dim            = 384
	corpusVersion  = "storebench-2"
	wordsPerChunk  = 80
	vocabularySize = 5000
)

// entitiesFor is the number of distinct entities of a corpus of n chunks.
func entitiesFor(n int) int { return max(200, n/10) }

// corpus generates the chunks of one size; the same n always gives the same corpus.
type corpus struct {
	n        int
	words    []string
	entities []string
}

func newCorpus(n int) corpus {
	r := rand.New(rand.NewPCG(11, 13))
	return corpus{n: n, words: pseudoWords(r, vocabularySize), entities: names(r, entitiesFor(n))}
}

// pseudoWords returns n distinct pronounceable lower-case words.
func pseudoWords(r *rand.Rand, n int) []string {
	syllables := strings.Fields("ka lo mi ne tra pol fin ex ber an sa ro vi du gen te mar os lu chi ze pa")
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// names returns n distinct two-word capitalised names.
func names(r *rand.Rand, n int) []string {
	first := pseudoWords(r, 400)
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		a, b := first[r.IntN(len(first))], first[r.IntN(len(first))]
		name := strings.ToUpper(a[:1]) + a[1:] + " " + strings.ToUpper(b[:1]) + b[1:]
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// embedder embeds as the corpus was embedded.
type embedder struct{}

func (embedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = llmtest.Vector(t, dim)
	}
	return out, nil
}

// seed writes the corpus into store through the Store API, one document at a time, extractions by
// workers goroutines; progress is called after each document. The documents before from are drawn and
// not written (a build resumed); without graph, the relations' vectors are not computed (a store that
// drops the extractions).
func (c corpus) seed(ctx context.Context, store graphrag.Store, workers, from int, graph bool, progress func(done, total int)) error {
	r := rand.New(rand.NewPCG(17, uint64(c.n)))
	wordZipf := rand.NewZipf(r, 1.1, 4, uint64(len(c.words)-1))
	entityZipf := rand.NewZipf(r, 1.05, 8, uint64(len(c.entities)-1))
	docs := (c.n + chunksPerDoc - 1) / chunksPerDoc
	for d := range docs {
		src := fmt.Appendf(nil, "%s document %d of %d", corpusVersion, d, c.n)
		doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: fmt.Sprintf("doc-%05d.md", d),
			Title: fmt.Sprintf("Report %d", d), Status: graphrag.StatusDone, CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}
		write := d >= from
		if write {
			if _, _, err := store.PutDocument(ctx, doc, src); err != nil {
				return fmt.Errorf("put document %d: %w", d, err)
			}
		}
		count := min(chunksPerDoc, c.n-d*chunksPerDoc)
		chunks := make([]graphrag.Chunk, count)
		vectors := make(map[string][]float32, count)
		extractions := make([]graphrag.Extraction, count)
		for i := range chunks {
			mentioned := []string{c.entities[entityZipf.Uint64()], c.entities[entityZipf.Uint64()], c.entities[entityZipf.Uint64()]}
			var text strings.Builder
			fmt.Fprintf(&text, "Report %d > Section %d\n\n", d, i/10)
			for w := range wordsPerChunk {
				if w%27 == 5 {
					text.WriteString(mentioned[w/27] + " ")
				}
				text.WriteString(c.words[wordZipf.Uint64()] + " ")
			}
			id := graphrag.ChunkID(doc.ID, i)
			chunks[i] = graphrag.Chunk{ID: id, DocID: doc.ID, Ordinal: i, Text: text.String(), Tokens: 120}
			if write {
				vectors[id] = llmtest.Vector(chunks[i].Text, dim)
			}
			extractions[i] = extraction(id, doc.ID, mentioned, r, write && graph)
		}
		if !write {
			continue
		}
		if err := store.PutChunks(ctx, doc.ID, chunks); err != nil {
			return fmt.Errorf("put chunks of document %d: %w", d, err)
		}
		if err := store.SetEmbeddings(ctx, vectors); err != nil {
			return fmt.Errorf("set embeddings of document %d: %w", d, err)
		}
		if err := putAll(ctx, store, extractions, workers); err != nil {
			return fmt.Errorf("put extractions of document %d: %w", d, err)
		}
		if progress != nil {
			progress(d+1, docs)
		}
	}
	return nil
}

func putAll(ctx context.Context, store graphrag.Store, xs []graphrag.Extraction, workers int) error {
	errs := make(chan error, workers)
	next := make(chan graphrag.Extraction)
	for range workers {
		go func() {
			var err error
			for x := range next {
				if err == nil {
					err = store.PutExtraction(ctx, x)
				}
			}
			errs <- err
		}()
	}
	for _, x := range xs {
		next <- x
	}
	close(next)
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// extraction relates the mentioned entities in a chain: a -> b -> c, each relation with its vector when
// embed is set (the draws from r are the same either way).
func extraction(chunkID, docID string, mentioned []string, r *rand.Rand, embed bool) graphrag.Extraction {
	x := graphrag.Extraction{ChunkID: chunkID}
	seen := map[string]bool{}
	for _, name := range mentioned {
		key := graphrag.NormalizeKey(name)
		if !seen[key] {
			seen[key] = true
			x.Entities = append(x.Entities, graphrag.Entity{Key: key, Name: name, Type: "thing", Aliases: []string{name},
				ChunkIDs: []string{chunkID}, DocIDs: []string{docID}})
		}
	}
	for i := 1; i < len(mentioned); i++ {
		src, dst := graphrag.NormalizeKey(mentioned[i-1]), graphrag.NormalizeKey(mentioned[i])
		if src == dst {
			continue
		}
		typ := fmt.Sprintf("REL_%d", r.IntN(8))
		rel := graphrag.Relation{ID: graphrag.RelationID(src, typ, dst), Source: src, Target: dst,
			SourceName: mentioned[i-1], TargetName: mentioned[i], Type: typ, Values: map[string]any{"weight": float64(r.IntN(100))},
			ChunkIDs: []string{chunkID}, DocIDs: []string{docID}}
		if embed {
			rel.Embedding = llmtest.Vector(graphrag.FactText(rel), dim) // as the ingester embeds fact sentences
		}
		x.Relations = append(x.Relations, rel)
	}
	return x
}

// queries returns question-like texts over the corpus: content words and one or two entity names, as a
// user would ask; half name a popular entity, half a rare one.
func (c corpus) queries() []string {
	r := rand.New(rand.NewPCG(23, 29))
	out := make([]string, 64)
	for i := range out {
		a := c.entities[r.IntN(20)]
		if i%2 == 1 {
			a = c.entities[len(c.entities)/2+r.IntN(len(c.entities)/2)]
		}
		b := c.entities[r.IntN(len(c.entities))]
		out[i] = fmt.Sprintf("What does the report say about %s and %s regarding %s %s?", a, b,
			c.words[r.IntN(200)], c.words[r.IntN(2000)])
	}
	return out
}
