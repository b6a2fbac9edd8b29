// Package resolve decides whether two entity names found in documents stand for one thing: the resolution
// that graphrag's normalised key (case, diacritics, punctuation, legal suffixes) cannot do alone. Score
// compares two mentions by their names (a fuzzy-matching library for spelling), their kinds, their
// descriptions' embeddings and what they are found with; Resolver applies it at ingest.
package resolve

import "github.com/hopwise/hopwise/graphrag"

// Mention is what the resolver knows of one entity when it compares it with another.
type Mention struct {
	Name        string
	Type        string
	Description string
	// Docs are the documents it was found in; Title is the title of the one a new mention comes from.
	Docs  []string
	Title string
	// Context are the names it is found with: the other entities of its passage, or its neighbours in the
	// graph.
	Context []string
	// Vector is the embedding of Text(), nil without one.
	Vector []float32
}

// Text is what is embedded for a mention: its name and, when it has one, its description.
func (m Mention) Text() string {
	if m.Description == "" {
		return m.Name
	}
	return m.Name + ": " + m.Description
}

// Verdict is what to do with a pair.
type Verdict int

const (
	// Distinct: keep them apart.
	Distinct Verdict = iota
	// Review: they may be one thing; a person decides (the possible duplicates list).
	Review
	// Merge: one thing, merged without asking.
	Merge
)

func (v Verdict) String() string {
	return [...]string{"distinct", "review", "merge"}[v]
}

// Thresholds of Score: at MergeAt or more a pair is merged; from ReviewAt it is proposed for review.
const (
	MergeAt  = 0.9
	ReviewAt = 0.5
)

// Decision is the verdict on a pair with its confidence and why.
type Decision struct {
	Verdict Verdict
	// Score is the confidence that both are one thing, 0 to 1.
	Score float64
	// Rule names the rule that decided, Evidence says what it saw, for people reviewing the pair.
	Rule     string
	Evidence []string
}

func decide(score float64, rule string, evidence ...string) Decision {
	v := Distinct
	switch {
	case score >= MergeAt:
		v = Merge
	case score >= ReviewAt:
		v = Review
	}
	return Decision{Verdict: v, Score: score, Rule: rule, Evidence: evidence}
}

func key(name string) string { return graphrag.NormalizeKey(name) }
