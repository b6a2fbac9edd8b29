package agent

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

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
// identifier of the question counts twice, a word of it once), best first, ties in source order.
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
		for _, line := range sourceLines(s) {
			key := strings.ToLower(line)
			if len(strings.Fields(line)) < 3 || seen[key] {
				continue
			}
			seen[key] = true
			norm := normSource(line)
			score := 0
			for _, a := range names {
				if holds(norm, a) {
					score += 2
				}
			}
			for _, st := range stems {
				if strings.Contains(norm, " "+st) {
					score++
				}
			}
			if score >= 2 {
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

// sourceLines are the lines a source reads as: a passage's sentences and table rows (each cell after its
// column's header), its heading left out; a graph fact as one line.
func sourceLines(s source) []string {
	sents, rows := passageParts(s)
	return append(sents, rows...)
}

// passageParts returns a source's sentences and its table rows, each on one line; a graph fact is one
// sentence.
func passageParts(s source) (sents, rows []string) {
	if s.kind != KindChunk {
		return []string{oneLine(s.text())}, nil
	}
	text := strings.TrimLeft(s.text(), "\n")
	if head, rest, ok := strings.Cut(text, "\n\n"); ok && !strings.Contains(head, "\n") {
		text = rest // the chunker's heading path ("Munich travel tips > Getting into town") and its blank line
	}
	prose, rows := graphrag.TableRowTexts(text)
	for _, sent := range sentences(prose) {
		if sent = oneLine(strings.TrimLeft(strings.TrimSpace(sent), "-*#> ")); sent != "" {
			sents = append(sents, sent)
		}
	}
	for i, r := range rows {
		rows[i] = oneLine(r)
	}
	return sents, rows
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
