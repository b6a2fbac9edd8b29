package neo4j

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// The benchmark corpus: benchDocs documents of benchChunksPerDoc chunks of synthetic text (80 words of a
// seeded vocabulary plus one identifier each), random unit vectors of benchDim dimensions, and an
// extraction per chunk naming three of benchEntities entities (a few popular ones become hubs) and two
// relations. It is built once and reused by later runs while the database still holds it.
const (
	benchDocs         = 100
	benchChunksPerDoc = 100
	benchDim          = 384
	benchEntities     = 2000
	benchVersion      = "1"
)

func BenchmarkNeo4jSearchText(b *testing.B) {
	s, c := benchStore(b)
	queries := []string{c.words[0] + " " + c.words[1], c.words[3] + " " + c.words[17], "ID-04711", c.words[250] + " " + c.words[9] + " " + c.words[1200], "ID-09999 " + c.words[40]}
	i := 0
	for b.Loop() {
		got, err := s.SearchText(b.Context(), queries[i%len(queries)], 10)
		if err != nil {
			b.Fatal(err)
		}
		if strings.HasPrefix(queries[i%len(queries)], "ID-") && len(got) == 0 {
			b.Fatalf("SearchText(%q) found nothing", queries[i%len(queries)])
		}
		i++
	}
}

func BenchmarkNeo4jSearchVector(b *testing.B) {
	s, _ := benchStore(b)
	r := rand.New(rand.NewPCG(42, 43))
	vecs := make([][]float32, 32)
	for i := range vecs {
		vecs[i] = randomVector(r, benchDim)
	}
	i := 0
	for b.Loop() {
		got, err := s.SearchVector(b.Context(), vecs[i%len(vecs)], 10)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 10 {
			b.Fatalf("SearchVector found %d chunks, want 10", len(got))
		}
		i++
	}
}

func BenchmarkNeo4jNeighborhood2(b *testing.B) {
	s, c := benchStore(b)
	i := 0
	for b.Loop() {
		keys := []string{c.entityKey(i % 7), c.entityKey(100 + i*37%benchEntities)}
		got, err := s.Neighborhood(b.Context(), keys, 2, 50)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) == 0 {
			b.Fatalf("Neighborhood(%v) found nothing", keys)
		}
		i++
	}
}

// benchCorpus is what the queries need to know of the corpus.
type benchCorpus struct {
	words []string
}

func (benchCorpus) entityName(i int) string { return fmt.Sprintf("Entity %04d", i) }

func (c benchCorpus) entityKey(i int) string { return graphrag.NormalizeKey(c.entityName(i)) }

var (
	benchOnce sync.Once
	benchErr  error
	benchData = benchCorpus{words: benchWords(3000)}
)

// benchStore opens a Store on the benchmark corpus, building it when the database does not hold it.
func benchStore(b *testing.B) (*Store, benchCorpus) {
	uri := testURI(b)
	benchOnce.Do(func() {
		marker := cypher(b, uri, `OPTIONAL MATCH (m:Meta {id: 'bench'}) RETURN m.version`, nil)
		if asString(first(marker)) == benchVersion {
			return
		}
		wipe(b, uri, benchDim, false)
		s := openOn(b, uri, benchDim, testModel)
		benchErr = seedBench(b, s, benchData)
		if benchErr == nil {
			cypher(b, uri, `MERGE (m:Meta {id: 'bench'}) SET m.version = $v`, map[string]any{"v": benchVersion})
		}
	})
	if benchErr != nil {
		b.Fatalf("seed the benchmark corpus: %v", benchErr)
	}
	return openOn(b, uri, benchDim, testModel), benchData
}

func seedBench(b *testing.B, s *Store, c benchCorpus) error {
	ctx := b.Context()
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.2, 8, uint64(len(c.words)-1))
	entityZipf := rand.NewZipf(r, 1.1, 4, benchEntities-1)
	var extractions []graphrag.Extraction
	for d := range benchDocs {
		src := fmt.Appendf(nil, "benchmark document %d", d)
		doc, _, err := s.PutDocument(ctx, graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)),
			Name: fmt.Sprintf("bench-%03d.txt", d), Title: fmt.Sprintf("Benchmark %d", d)}, src)
		if err != nil {
			return err
		}
		chunks := make([]graphrag.Chunk, benchChunksPerDoc)
		vectors := map[string][]float32{}
		for i := range chunks {
			var text strings.Builder
			fmt.Fprintf(&text, "Benchmark %d > Section %d\nID-%05d", d, i/10, d*benchChunksPerDoc+i)
			for range 80 {
				text.WriteString(" " + c.words[zipf.Uint64()])
			}
			chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, i), Ordinal: i, Text: text.String(), Tokens: 100}
			vectors[chunks[i].ID] = randomVector(r, benchDim)
			var x graphrag.Extraction
			x.ChunkID = chunks[i].ID
			for range 3 {
				x.Entities = append(x.Entities, entity(c.entityName(int(entityZipf.Uint64())), "THING"))
			}
			for j := 1; j < len(x.Entities); j++ {
				rel := relation(x.Entities[j-1].Name, fmt.Sprintf("TYPE_%d", r.IntN(10)), x.Entities[j].Name)
				rel.Values = map[string]any{"weight": r.IntN(100)}
				x.Relations = append(x.Relations, rel)
			}
			extractions = append(extractions, x)
		}
		if err := s.PutChunks(ctx, doc.ID, chunks); err != nil {
			return err
		}
		if err := s.SetEmbeddings(ctx, vectors); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for w := range errs {
		wg.Go(func() {
			for i := w; i < len(extractions); i += len(errs) {
				if err := s.PutExtraction(ctx, extractions[i]); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// benchWords returns n distinct pronounceable pseudo-words, the same on every run.
func benchWords(n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	const consonants, vowels = "bcdfghklmnprstvz", "aeiou"
	seen := map[string]bool{}
	words := make([]string, 0, n)
	for len(words) < n {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteByte(consonants[r.IntN(len(consonants))])
			w.WriteByte(vowels[r.IntN(len(vowels))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			words = append(words, w.String())
		}
	}
	return words
}
