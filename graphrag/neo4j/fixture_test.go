package neo4j

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// putDoc stores a document named name whose chunks have these texts and returns the chunks.
func putDoc(t testing.TB, s *Store, name string, texts ...string) (graphrag.Document, []graphrag.Chunk) {
	t.Helper()
	src := []byte(name + "\n" + fmt.Sprint(texts))
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: name, Title: name}
	stored, _, err := s.PutDocument(t.Context(), doc, src)
	if err != nil {
		t.Fatalf("PutDocument(%s): %v", name, err)
	}
	chunks := make([]graphrag.Chunk, len(texts))
	for i, text := range texts {
		chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(stored.ID, i), DocID: stored.ID, Ordinal: i, Text: text,
			Section: []string{name}, Tokens: len(text) / 4}
	}
	if err := s.PutChunks(t.Context(), stored.ID, chunks); err != nil {
		t.Fatalf("PutChunks(%s): %v", name, err)
	}
	return stored, chunks
}

// entity is an entity named name as extraction would return it.
func entity(name, typ string) graphrag.Entity {
	return graphrag.Entity{Key: graphrag.NormalizeKey(name), Name: name, Type: typ, Aliases: []string{name},
		Description: typ + " " + name}
}

// relation is a relation between two named entities.
func relation(source, typ, target string) graphrag.Relation {
	s, d := graphrag.NormalizeKey(source), graphrag.NormalizeKey(target)
	return graphrag.Relation{ID: graphrag.RelationID(s, typ, d), Source: s, Target: d, SourceName: source,
		TargetName: target, Type: typ, Description: source + " " + typ + " " + target}
}

// randomVector is a unit vector of dim dimensions drawn from r.
func randomVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var norm float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return v
}
