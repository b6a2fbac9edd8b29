package agent

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hopwise/hopwise/graphrag"
)

// Key lines: a small model reads a dozen sources poorly. Given "Which airline has the IATA code AY?" and
// the registry's table, the local 1.5B model answered "Aeroflot"; given the Series B passage, it named the
// seed round's investor. The answer call of the local profile therefore repeats, after the sources and just
// before the question, the few lines of them (a sentence, a table row with its column headers, a graph
// fact) that hold most of the question's names and words, each with its source's number. They point the
// model at the place to read; they add no text the sources do not hold, and the sources stay whole for
// questions whose answer shares no word with them (the tier of a rule reached through a distance).

// keyLine is one line of a source and the number of that source in the prompt.
type keyLine struct {
	n     int
	text  string
	score int // the question's terms it holds, a name twice
}

// keyLines returns at most max lines of srcs that hold at least two of the question's terms (a name or
// identifier of the question counts twice, a word of it once), best first, ties in source order. A line is
// read with its passage's heading ("Nexa AI employee handbook > TRV-117 Class of travel" names the policy
// its sentences are about), and a sentence of prose counts only when it or its heading holds one of the
// question's names, not only its numbers: "flights up to 1,500 km" of a rule about halving matched "a
// flight of up to 1,500 km" as well as the tier did, and the model took the wrong one.
func keyLines(question string, srcs []source, max int) []keyLine {
	names := anchors(question)
	named := map[string]bool{}
	for _, a := range names {
		for _, w := range strings.Fields(a) {
			named[w] = true
		}
	}
	var stems []string
	for _, w := range contentWords(question) {
		if named[w] || len([]rune(w)) < 3 {
			continue
		}
		stems = append(stems, string([]rune(w)[:min(len([]rune(w)), 5)]))
	}
	type scored struct {
		keyLine
		order int
	}
	var all []scored
	seen := map[string]bool{}
	for i, s := range srcs {
		head, sents, rows := passageParts(s)
		for j, line := range slices.Concat(sents, rows) {
			key := strings.ToLower(line)
			if len(strings.Fields(line)) < 3 || seen[key] {
				continue
			}
			seen[key] = true
			ctx := normSource(head + "\n" + line)
			score, ownName := 0, false
			for _, a := range names {
				if holds(ctx, a) {
					score += 2
				}
				ownName = ownName || (holds(ctx, a) && strings.IndexFunc(a, unicode.IsLetter) >= 0) // a name or identifier, not a bare number
			}
			for _, st := range stems {
				if strings.Contains(ctx, " "+st) {
					score++
				}
			}
			prose := s.kind == KindChunk && j < len(sents)
			if score >= 2 && (!prose || ownName) {
				all = append(all, scored{keyLine{i + 1, line, score}, len(all)})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	var out []keyLine
	for _, s := range all {
		if len(out) == max {
			break
		}
		out = append(out, s.keyLine)
	}
	return out
}

// listItem finds the bullet of a Markdown list item ("- ", "* ", "1. ").
var listItem = regexp.MustCompile(`^(?:[-*+]|\d+[.)])\s+`)

// passageParts returns a source's heading (the chunker's section path, which the passage's text starts
// with), its sentences (a list joined to the sentence that introduces it with a colon) and its table rows (each cell after its column's header), each on one line; a graph
// fact is one sentence without a heading.
func passageParts(s source) (head string, sents, rows []string) {
	if s.kind != KindChunk {
		return "", []string{oneLine(s.text())}, nil
	}
	text := strings.TrimLeft(s.text(), "\n")
	if h, rest, ok := strings.Cut(text, "\n\n"); ok && !strings.Contains(h, "\n") {
		head, text = h, rest // "Munich travel tips > Getting into town" and its blank line
	}
	prose, rows := graphrag.TableRowTexts(text)
	intro := false // the last sentence ends with a colon: the list items that follow belong to it
	for _, raw := range sentences(prose) {
		raw = strings.TrimSpace(raw)
		item := listItem.MatchString(raw)
		sent := oneLine(strings.TrimLeft(listItem.ReplaceAllString(raw, ""), "#> "))
		switch {
		case sent == "":
			continue
		case item && intro && len(sents) > 0:
			// "... its engineering team consisted of: Priya Raman, lead robotics engineer; Tomas Silva, ...":
			// an item pointed at alone hid its siblings (the model named one engineer of three)
			last := &sents[len(sents)-1]
			if !strings.HasSuffix(*last, ":") {
				*last += ";"
			}
			*last += " " + sent
			continue
		}
		intro = strings.HasSuffix(sent, ":")
		sents = append(sents, sent)
	}
	for i, r := range rows {
		rows[i] = oneLine(r)
	}
	return head, sents, rows
}

// writeKeyLines writes the key lines after the sources, nothing when there are none.
func writeKeyLines(b *strings.Builder, lines []keyLine) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nLines of the sources with the question's words:\n")
	for _, l := range lines {
		b.WriteString("[" + strconv.Itoa(l.n) + "] " + quote(l.text) + "\n")
	}
}
