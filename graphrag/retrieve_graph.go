package graphrag

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Fact is a relation of the graph put as a sentence people and models can read, with the chunks it came from.
type Fact struct {
	ID       string // the relation's ID
	Sentence string
	Relation Relation
	Hop      int
	Score    float64
	Sources  []Chunk
}

// LinkEntities finds the graph entities the texts name, surest first (see link).
func (r *Retriever) LinkEntities(ctx context.Context, texts []string) ([]LinkedEntity, error) {
	return r.link(ctx, texts)
}

// FactText is the sentence a relation's vector is made from: its ends and its type in plain words,
// "Delhi distance from Munich". Description and values stay out, so that the text, and the vector, stay
// the same when another passage supports the relation again.
func FactText(rel Relation) string {
	typ := strings.ToLower(strings.ReplaceAll(rel.Type, "_", " "))
	return strings.Join(strings.Fields(rel.SourceName+" "+typ+" "+rel.TargetName), " ")
}

// FactSentence renders a relation as one line: "Delhi DISTANCE_FROM Munich (distance_km: 5921): description".
func FactSentence(rel Relation) string {
	var b strings.Builder
	b.WriteString(rel.SourceName)
	b.WriteString(" ")
	b.WriteString(rel.Type)
	b.WriteString(" ")
	b.WriteString(rel.TargetName)
	if len(rel.Values) > 0 {
		names := make([]string, 0, len(rel.Values))
		for k := range rel.Values {
			names = append(names, k)
		}
		sort.Strings(names)
		b.WriteString(" (")
		for i, k := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s: %v", k, rel.Values[k])
		}
		b.WriteString(")")
	}
	if d := strings.TrimSpace(rel.Description); d != "" {
		b.WriteString(": ")
		b.WriteString(d)
	}
	return b.String()
}

// stopword holds words that name no entity; they are left out of entity search.
var stopword = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for from with without into onto
		is are was were be been being am do does did done have has had can could may might must shall should
		will would i me my we our you your he she it its they them their this that these those what which who
		whom whose when where why how much many more most some any all no not yes there here as than then so
		about after before over under between up down out off again per via get got receive`) {
		m[w] = true
	}
	return m
}()
