package graphrag

import (
	"strings"
)

// Triple is a [subject, predicate, object] statement found in a passage by an extraction made elsewhere
// (a benchmark's recorded extraction, for example).
type Triple struct {
	Subject, Predicate, Object string
}

// TriplesExtraction turns named entities and triples found in chunk c into the Extraction an extractor
// returns, resolved the way a model's answer is: names to entity keys, predicates to relation types, the
// chunk as provenance. It lets an evaluation replay a recorded extraction through the real store.
func TriplesExtraction(c Chunk, entities []string, triples []Triple) Extraction {
	var g extractedGraph
	for _, e := range entities {
		g.Entities = append(g.Entities, extractedEntity{Name: e})
	}
	for _, t := range triples {
		if strings.TrimSpace(t.Subject) == "" || strings.TrimSpace(t.Object) == "" {
			continue
		}
		g.Relations = append(g.Relations, extractedRelation{Source: t.Subject, Target: t.Object, Type: t.Predicate})
	}
	return g.resolve(c)
}
