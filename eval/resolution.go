package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/resolve"
)

// ResolutionPair is one labelled pair of eval/resolution/pairs.jsonl: two mentions of names and whether
// they are one thing, decided by reading the passages (Why says how).
type ResolutionPair struct {
	ID        string   `json:"id"`
	Source    string   `json:"source"`    // musique or demo
	Candidate string   `json:"candidate"` // how the pair was found: contain, fuzzy, acronym, samekey, homonym, random, written
	A         PairSide `json:"a"`
	B         PairSide `json:"b"`
	Same      bool     `json:"same"`
	Why       string   `json:"why"`
}

// PairSide is one mention of a pair as the file records it.
type PairSide struct {
	Name        string   `json:"name"`
	Type        string   `json:"type,omitempty"`
	Description string   `json:"description,omitempty"`
	Doc         string   `json:"doc"`
	Title       string   `json:"title,omitempty"`
	Context     []string `json:"context,omitempty"`
}

// Mention is the side as the resolver sees it (without a vector).
func (s PairSide) Mention() resolve.Mention {
	return resolve.Mention{Name: s.Name, Type: s.Type, Description: s.Description, Docs: []string{s.Doc},
		Title: s.Title, Context: s.Context}
}

// LoadResolutionPairs reads a file of labelled pairs.
func LoadResolutionPairs(path string) ([]ResolutionPair, error) {
	var out []ResolutionPair
	err := readJSONLines(path, func(line []byte) error {
		var p ResolutionPair
		if err := json.Unmarshal(line, &p); err != nil {
			return err
		}
		if p.ID == "" || p.A.Name == "" || p.B.Name == "" {
			return fmt.Errorf("a pair needs id and both names")
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// MergeScore is the precision and recall of the merges a method makes on labelled pairs: a merge of a
// pair labelled same is right, of one labelled different wrong; a same pair not merged is missed.
type MergeScore struct {
	Method       string   `json:"method"`
	Source       string   `json:"source"`
	Pairs        int      `json:"pairs"`
	Merged       int      `json:"merged"`
	Right        int      `json:"right"`
	Same         int      `json:"same"`
	Precision    float64  `json:"precision"`
	Recall       float64  `json:"recall"`
	Review       int      `json:"review"`      // pairs proposed for review (the resolver only)
	ReviewSame   int      `json:"review_same"` // of those, labelled same
	WrongMerges  []string `json:"wrong_merges,omitempty"`
	MissedMerges []string `json:"missed_merges,omitempty"`
}

// PairMethods are the methods EvaluatePairs compares.
const (
	PairKeyOnly  = "normalised key only (before)"
	PairResolver = "resolver (after)"
)

// EvaluatePairs scores every pair by the normalised key alone and by the resolver, overall and per source.
// vector gives the embedding of a mention's text (resolve.Mention.Text); it may return nil.
func EvaluatePairs(pairs []ResolutionPair, vector func(text string) []float32) []MergeScore {
	var out []MergeScore
	for _, src := range []string{"all", "musique", "demo"} {
		key := MergeScore{Method: PairKeyOnly, Source: src}
		res := MergeScore{Method: PairResolver, Source: src}
		for _, p := range pairs {
			if src != "all" && p.Source != src {
				continue
			}
			a, b := p.A.Mention(), p.B.Mention()
			a.Vector, b.Vector = vector(a.Text()), vector(b.Text())
			d := resolve.Score(a, b)
			key.add(p, graphrag.NormalizeKey(p.A.Name) == graphrag.NormalizeKey(p.B.Name), false)
			res.add(p, d.Verdict == resolve.Merge, d.Verdict == resolve.Review)
		}
		out = append(out, key.done(), res.done())
	}
	return out
}

func (m *MergeScore) add(p ResolutionPair, merged, review bool) {
	m.Pairs++
	what := fmt.Sprintf("%s: %q / %q", p.ID, p.A.Name, p.B.Name)
	if p.Same {
		m.Same++
	}
	switch {
	case merged && p.Same:
		m.Merged++
		m.Right++
	case merged:
		m.Merged++
		m.WrongMerges = append(m.WrongMerges, what)
	case p.Same:
		m.MissedMerges = append(m.MissedMerges, what)
	}
	if review {
		m.Review++
		if p.Same {
			m.ReviewSame++
		}
	}
}

func (m MergeScore) done() MergeScore {
	if m.Merged > 0 {
		m.Precision = float64(m.Right) / float64(m.Merged)
	}
	if m.Same > 0 {
		m.Recall = float64(m.Right) / float64(m.Same)
	}
	return m
}

// WriteMergeTable writes the scores as a markdown table.
func WriteMergeTable(w io.Writer, scores []MergeScore) error {
	var b strings.Builder
	b.WriteString("| pairs | method | pairs (same) | merged | precision | recall | proposed for review (same) |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
	for _, s := range scores {
		review := "-"
		if s.Method == PairResolver {
			review = fmt.Sprintf("%d (%d)", s.Review, s.ReviewSame)
		}
		fmt.Fprintf(&b, "| %s | %s | %d (%d) | %d | %.3f | %.3f | %s |\n", s.Source, s.Method, s.Pairs, s.Same, s.Merged,
			s.Precision, s.Recall, review)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
