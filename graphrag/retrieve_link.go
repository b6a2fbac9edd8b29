package graphrag

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

// LinkedEntity is a graph entity a query names, with how sure the link is.
type LinkedEntity struct {
	Entity
	Phrase string // the words of the query it was found by
	// Confidence is 1 when a phrase of the query is the entity's name (its key), less when only some of
	// the entity's name words occur in the query.
	Confidence float64
}

// maxLinked bounds the entities one retrieval links; maxPhraseWords the words of a name looked up
// ("Alexander and the Terrible, Horrible, No Good, Very Bad Day" has 11).
const (
	maxLinked      = 12
	maxPhraseWords = 12
)

// span is a phrase of a query: words [from, to) of text number text.
type span struct{ text, from, to int }

func (s span) inside(o span) bool {
	return s.text == o.text && o.from <= s.from && s.to <= o.to && (o.to-o.from) > (s.to-s.from)
}

// link finds the entities the texts name. Every phrase of one to five words is looked up by its key (and
// the key of its singular), possessives dropped ("Wesson's" is "Wesson"); a match inside a longer match is
// dropped ("Integration" inside "Journal of Psychotherapy Integration"). When fewer than maxLinked match,
// the content words are searched in entity names and aliases, and an entity whose every name word the
// texts hold, though not as one phrase ("Ibsen, Henrik"), is linked with half the confidence.
func (r *Retriever) link(ctx context.Context, texts []string) ([]LinkedEntity, error) {
	spansOf := map[string][]span{}
	var keys []string
	var content []string
	words := make([][]string, len(texts))
	rawWords := make([][]string, len(texts))
	cased := make([]bool, len(texts)) // whether the text writes names with capitals
	for ti, t := range texts {
		words[ti] = queryWords(t)
		rawWords[ti] = words[ti]
		for i, w := range words[ti] {
			if i > 0 && w != strings.ToLower(w) {
				cased[ti] = true
			}
		}
		ws := words[ti]
		for i := range ws {
			for n := 1; n <= maxPhraseWords && i+n <= len(ws); n++ {
				phrase := strings.Join(ws[i:i+n], " ")
				for _, k := range keyVariants(phrase) {
					if k == "" || (n == 1 && stopword[k]) {
						continue
					}
					if _, ok := spansOf[k]; !ok {
						keys = append(keys, k)
					}
					spansOf[k] = append(spansOf[k], span{ti, i, i + n})
				}
			}
			if w := strings.ToLower(ws[i]); !stopword[w] && len(w) > 1 {
				content = append(content, ws[i])
			}
		}
	}
	// The phrases' keys and the content words are read in one call, without the entities' mentions; the
	// words' matches are used only when fewer than maxLinked phrases match.
	exact, found, err := r.store.LinkCandidates(ctx, keys, strings.Join(content, " "), maxLinked)
	if err != nil {
		return nil, fmt.Errorf("graphrag: link entities: %w", err)
	}
	var matched []span
	for _, e := range exact {
		matched = append(matched, spansOf[e.Key]...)
	}
	var out []LinkedEntity
	seen := map[string]bool{}
	for _, e := range exact {
		if seen[e.Key] || allInsideOthers(spansOf[e.Key], matched) {
			continue
		}
		seen[e.Key] = true
		s := spansOf[e.Key][0]
		conf := nameConfidence(e)
		if cased[s.text] {
			conf = phraseConfidence(rawWords[s.text][s.from:s.to], s.from == 0)
		}
		out = append(out, LinkedEntity{Entity: e, Phrase: strings.Join(words[s.text][s.from:s.to], " "), Confidence: conf})
	}
	if len(content) > 0 && len(out) < maxLinked {
		have := map[string]bool{}
		for _, w := range content {
			have[NormalizeKey(w)] = true
		}
		for _, e := range found {
			if seen[e.Key] || len(out) >= maxLinked {
				continue
			}
			seen[e.Key] = true
			if nameShare(e.Key, have) == 1 && !insideLinked(e.Key, out) { // every word of its name, not as one phrase
				out = append(out, LinkedEntity{Entity: e, Phrase: e.Name, Confidence: nameConfidence(e) / 2})
			}
		}
	}
	return out[:min(len(out), maxLinked)], nil
}

// commonNounConf is the confidence of a link by a common noun ("country", "author"): measured on
// MuSiQue, such entities are hubs of generic facts, yet sometimes the one the question is about.
const commonNounConf = 0.25

// nameConfidence is how surely a name found in a query points at one thing: a proper name (a capital
// letter or a digit in the entity's name, "Midway", "KAGH-FM", "1991") fully, a common noun the
// extraction made an entity of ("country", "author", "first") much less.
func nameConfidence(e Entity) float64 {
	for _, r := range e.Name {
		if unicode.IsUpper(r) || unicode.IsDigit(r) {
			return 1
		}
	}
	return commonNounConf
}

// phraseConfidence is how surely a phrase of a text that writes names with capitals names one thing: a
// phrase with a capitalised word or a digit (not counting the text's first word) fully, a lower-case
// phrase ("president", "country") as a common noun.
func phraseConfidence(ws []string, first bool) float64 {
	for i, w := range ws {
		if first && i == 0 {
			continue
		}
		for _, r := range w {
			if unicode.IsUpper(r) || unicode.IsDigit(r) {
				return 1
			}
		}
	}
	return commonNounConf
}

// insideLinked reports whether key's words stand together inside the key of an entity already linked
// ("good" inside "alexander and the terrible horrible no good very bad day").
func insideLinked(key string, linked []LinkedEntity) bool {
	for _, e := range linked {
		if e.Key != key && strings.Contains(" "+e.Key+" ", " "+key+" ") {
			return true
		}
	}
	return false
}

// allInsideOthers reports whether every span of an entity lies inside a longer matched span.
func allInsideOthers(spans, matched []span) bool {
	for _, s := range spans {
		inside := false
		for _, m := range matched {
			if s.inside(m) {
				inside = true
				break
			}
		}
		if !inside {
			return false
		}
	}
	return true
}

// nameShare is the share of the words of an entity key that are among have.
func nameShare(key string, have map[string]bool) float64 {
	ws := strings.Fields(key)
	if len(ws) == 0 {
		return 0
	}
	n := 0
	for _, w := range ws {
		if have[w] || have[singular(w)] {
			n++
		}
	}
	return float64(n) / float64(len(ws))
}

// queryWords splits text into words, possessives dropped, keeping hyphens and inner apostrophes.
func queryWords(text string) []string {
	raw := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '\'' && r != '’' && r != '.'
	})
	out := raw[:0]
	for _, w := range raw {
		w = strings.Trim(stripPossessive(strings.TrimRight(w, ".")), "'’-")
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// keyVariants are the keys a phrase may name an entity by: its own and, when its last word is a regular
// plural ("cities", "films"), that of the singular.
func keyVariants(phrase string) []string {
	k := NormalizeKey(phrase)
	ws := strings.Fields(k)
	if len(ws) == 0 {
		return nil
	}
	last := ws[len(ws)-1]
	if s := singular(last); s != last {
		ws[len(ws)-1] = s
		return []string{k, strings.Join(ws, " ")}
	}
	return []string{k}
}

// singular undoes a regular English plural of a word longer than three letters: "cities" -> "city",
// "films" -> "film"; "glass" and "bus" stay.
func singular(w string) string {
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}
