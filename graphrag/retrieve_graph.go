package graphrag

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"unicode"
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

// GraphOptions bound a graph retrieval.
type GraphOptions struct {
	Hops       int // 1 or 2
	Limit      int // facts returned at most
	MaxSources int // source chunks per fact
}

func (o GraphOptions) withDefaults() GraphOptions {
	if o.Hops < 1 || o.Hops > 2 {
		o.Hops = 2
	}
	if o.Limit <= 0 {
		o.Limit = 12
	}
	if o.MaxSources <= 0 {
		o.MaxSources = 2
	}
	return o
}

// Facts links the entities named in the texts to graph entities and returns the relations around them,
// best first: a relation joining two linked entities before one touching a single linked entity, one hop
// before two. Each fact carries up to MaxSources source chunks. No linked entity means no facts, not an error.
func (r *Retriever) Facts(ctx context.Context, texts []string, opt GraphOptions) ([]Fact, []Entity, error) {
	opt = opt.withDefaults()
	linked, exact, err := r.linkEntities(ctx, texts)
	if err != nil || len(linked) == 0 {
		return nil, nil, err
	}
	weight := map[string]float64{} // how surely the query names an entity: by key 1, by full text 0.5
	keys := make([]string, len(linked))
	for i, e := range linked {
		keys[i] = e.Key
		weight[e.Key] = 0.5
		if exact[e.Key] {
			weight[e.Key] = 1
		}
	}
	terms := contentWords(texts)
	edges, err := r.store.Neighborhood(ctx, keys, opt.Hops, opt.Limit*4)
	if err != nil {
		return nil, nil, fmt.Errorf("graphrag: neighbourhood: %w", err)
	}
	facts := make([]Fact, 0, len(edges))
	for _, e := range edges {
		sentence := FactSentence(e.Relation)
		facts = append(facts, Fact{
			ID: e.ID, Relation: e.Relation, Hop: e.Hop, Sentence: sentence,
			Score: (1+weight[e.Source]+weight[e.Target])/float64(e.Hop) + overlap(terms, sentence),
		})
	}
	sort.SliceStable(facts, func(i, j int) bool { return facts[i].Score > facts[j].Score })
	if len(facts) > opt.Limit {
		facts = facts[:opt.Limit]
	}
	if err := r.attachSources(ctx, facts, opt.MaxSources); err != nil {
		return nil, nil, err
	}
	return facts, linked, nil
}

func (r *Retriever) attachSources(ctx context.Context, facts []Fact, per int) error {
	var ids []string
	for _, f := range facts {
		ids = append(ids, f.Relation.ChunkIDs[:min(per, len(f.Relation.ChunkIDs))]...)
	}
	chunks, err := r.store.Chunks(ctx, ids)
	if err != nil {
		return fmt.Errorf("graphrag: fact sources: %w", err)
	}
	byID := make(map[string]Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	for i := range facts {
		for _, id := range facts[i].Relation.ChunkIDs[:min(per, len(facts[i].Relation.ChunkIDs))] {
			if c, ok := byID[id]; ok {
				facts[i].Sources = append(facts[i].Sources, c)
			}
		}
	}
	return nil
}

// LinkEntities finds the graph entities the texts name: every phrase of one to four words is looked up by
// its normalised key, and the content words are searched in entity names and aliases. Exact matches come
// first; at most 8 entities are returned.
func (r *Retriever) LinkEntities(ctx context.Context, texts []string) ([]Entity, error) {
	linked, _, err := r.linkEntities(ctx, texts)
	return linked, err
}

// linkEntities also returns the keys matched exactly.
func (r *Retriever) linkEntities(ctx context.Context, texts []string) ([]Entity, map[string]bool, error) {
	var keys []string
	seenKey := map[string]bool{}
	var content []string
	for _, t := range texts {
		words := strings.FieldsFunc(t, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\''
		})
		for i := range words {
			for n := 1; n <= 4 && i+n <= len(words); n++ {
				k := NormalizeKey(strings.Join(words[i:i+n], " "))
				if k != "" && !seenKey[k] && !stopword[k] {
					seenKey[k] = true
					keys = append(keys, k)
				}
			}
			if w := strings.ToLower(words[i]); !stopword[w] && len(w) > 1 {
				content = append(content, words[i])
			}
		}
	}
	exact, err := r.store.Entities(ctx, keys)
	if err != nil {
		return nil, nil, fmt.Errorf("graphrag: link entities: %w", err)
	}
	out := exact
	seen := map[string]bool{}
	for _, e := range exact {
		seen[e.Key] = true
	}
	isExact := maps.Clone(seen)
	if len(content) > 0 && len(out) < 8 {
		found, err := r.store.SearchEntities(ctx, strings.Join(content, " "), 8)
		if err != nil {
			return nil, nil, fmt.Errorf("graphrag: search entities: %w", err)
		}
		for _, e := range found {
			if !seen[e.Key] {
				seen[e.Key] = true
				out = append(out, e)
			}
		}
	}
	if len(out) > 8 {
		out = out[:8]
	}
	return out, isExact, nil
}

// contentWords are the lower-cased words of the texts that are not stop words.
func contentWords(texts []string) []string {
	var out []string
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if !stopword[w] && len(w) > 1 {
				out = append(out, w)
			}
		}
	}
	return out
}

// overlap is the share of terms found in the sentence, so "Delhi Munich distance" prefers DISTANCE_FROM.
func overlap(terms []string, sentence string) float64 {
	if len(terms) == 0 {
		return 0
	}
	s := strings.ToLower(sentence)
	n := 0
	for _, t := range terms {
		if strings.Contains(s, t) {
			n++
		}
	}
	return float64(n) / float64(len(terms))
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
