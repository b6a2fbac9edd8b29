package evaltest

import (
	"fmt"
	"strings"
)

// unit is a readable unit of a numbered source.
type unit struct {
	n    int // the source's number
	text string
	has  []term // the question's terms it covers, under its headings
	own  []term // the question's terms its own text covers
	at   int    // where the first name of the question appears in it (its subject comes first), or len
}

// score is how much of the question a unit covers, what only its headings say counting half.
func (u unit) score() int { return weightOf(u.own) + weightOf(u.has) }

// better prefers the unit covering more of the question, then the one that names the question's subject
// earlier.
func better(a, b unit) bool {
	if sa, sb := a.score(), b.score(); sa != sb {
		return sa > sb
	}
	return a.at < b.at
}

// firstName is the offset of the first of the question's names in text, or len(text).
func firstName(qt []term, text string) int {
	best := len(text)
	for _, loc := range wordSpans(text) {
		w := strings.ToLower(trimPossessive(text[loc[0]:loc[1]]))
		for _, t := range qt {
			if t.name && key(w) == t.stem && loc[0] < best {
				best = loc[0]
			}
		}
	}
	return best
}

// read splits a numbered source into passages; a graph fact is read as its relation alone ("Munich
// DISTANCE_FROM Lisbon (distance_km: 1964)"), its description being a sentence of a document.
func read(it item) []passage {
	if strings.HasPrefix(it.from, "graph fact") {
		head, _, _ := strings.Cut(it.text, ": ")
		if i := strings.Index(it.text, " ("); i >= 0 && i < len(head) {
			if j := strings.Index(it.text[i:], ")"); j >= 0 {
				head = it.text[:i+j+1]
			}
		}
		return []passage{{text: head}}
	}
	return passages(it.text)
}

// Refusal phrases of the reader: its refusals start with refusalOpening.
const refusalOpening = "The sources do not answer this question"

// Limits of a composed answer: units as relevant as the best one, units linking the names those introduce
// back to the question.
const (
	maxCover  = 4
	maxBridge = 2
)

// compose writes an answer to question from the numbered sources (see Reader).
func compose(question string, items []item) string {
	qt := terms(question)
	names, content := split(qt)
	var all []string
	var us []unit
	for _, it := range items {
		all = append(all, it.text)
		for _, ps := range read(it) {
			us = append(us, unit{n: it.n, text: ps.text, has: covered(qt, ps.context+"\n"+ps.text), own: covered(qt, ps.text),
				at: firstName(qt, ps.text)})
		}
	}
	if missing := minus(names, covered(names, strings.Join(all, "\n"))); len(missing) > 0 {
		return refusal(missing)
	}
	anchor := -1
	for i, u := range us {
		if isAnchor(u, names, content) && (anchor < 0 || better(u, us[anchor])) {
			anchor = i
		}
	}
	if anchor < 0 {
		return refusal(minus(content, covered(content, strings.Join(all, "\n"))))
	}
	// the anchor and every statement as relevant, then what links the names they introduce back to the
	// question, then statements covering what is still uncovered
	chosen := []int{anchor}
	for i, u := range us {
		if len(chosen) < maxCover && i != anchor && isAnchor(u, names, content) && u.score() == us[anchor].score() &&
			len(minus(ownNames(us[anchor]), ownNames(u))) == 0 {
			chosen = append(chosen, i)
		}
	}
	chosen = append(chosen, bridges(us, chosen, qt)...)
	var have []term
	for _, c := range chosen {
		have = append(have, minus(us[c].has, have)...)
	}
	for len(chosen) < maxCover+maxBridge {
		best, gain := -1, 0
		for i, u := range us {
			if g := weightOf(minus(u.has, have)); g > gain && !contains(chosen, i) {
				best, gain = i, g
			}
		}
		if best < 0 {
			break
		}
		chosen = append(chosen, best)
		have = append(have, minus(us[best].has, have)...)
	}
	var b strings.Builder
	for i, c := range chosen {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%s [%d]", strings.TrimSuffix(us[c].text, "."), us[c].n)
		b.WriteString(".")
	}
	if rest := minus(content, have); len(rest) > 0 && len(rest) == len(content) {
		b.WriteString(" The sources do not say anything about " + strings.Join(texts(rest), ", ") + ".")
	}
	return b.String()
}

// ownNames are the question's names a unit's own text mentions.
func ownNames(u unit) []term {
	n, _ := split(u.own)
	return n
}

// isAnchor reports a unit that mentions what the question is about and what it asks about it.
func isAnchor(u unit, names, content []term) bool {
	n, c := split(u.has)
	switch {
	case len(names) > 0 && len(content) > 0:
		return len(n) > 0 && len(c) > 0
	case len(names) > 0:
		return len(n) > 0
	default:
		return 2*len(c) >= len(content) && len(c) > 0
	}
}

// bridges returns units that link a name the chosen units introduce (one the question does not use) back
// to a name of the question and cover a word of the question the chosen units do not: "distance from
// Munich: Lisbon 1,964 km" after "headquartered in Lisbon". Those covering most come first.
func bridges(us []unit, chosen []int, qt []term) []int {
	var introduced, have []term
	for _, c := range chosen {
		n, _ := split(minus(passageTerms(us[c].text), qt))
		introduced = append(introduced, minus(n, introduced)...)
		have = append(have, minus(us[c].has, have)...)
	}
	var out []int
	for len(out) < maxBridge {
		best, score := -1, 0
		for i, u := range us {
			links, adds := covered(introduced, u.text), minus(u.own, have)
			if contains(chosen, i) || contains(out, i) || len(ownNames(u)) == 0 || len(links) == 0 || len(adds) == 0 {
				continue
			}
			if s := weightOf(adds) + weightOf(links); s > score {
				best, score = i, s
			}
		}
		if best < 0 {
			break
		}
		out = append(out, best)
		introduced = minus(introduced, covered(introduced, us[best].text))
		have = append(have, minus(us[best].has, have)...)
	}
	return out
}

func refusal(missing []term) string {
	if len(missing) == 0 {
		return refusalOpening + "."
	}
	return refusalOpening + ": they do not mention " + strings.Join(texts(missing), ", ") + "."
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
