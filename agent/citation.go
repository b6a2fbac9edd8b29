package agent

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// citeMarker matches [3], [1, 4] and [2; 5]; [1][3] is two markers.
var citeMarker = regexp.MustCompile(`\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]`)

// markerParts splits the inside of a marker ("1, 4" of [1, 4]) into its numbers.
func markerParts(inner string) []string {
	return strings.FieldsFunc(inner, func(r rune) bool { return r == ',' || r == ';' || r == ' ' })
}

// cited returns the source numbers an answer cites, ascending, each once, ignoring numbers outside 1..n.
func cited(answer string, n int) []int {
	var out []int
	for _, m := range citeMarker.FindAllStringSubmatch(answer, -1) {
		for _, part := range markerParts(m[1]) {
			k, err := strconv.Atoi(part)
			if err == nil && k >= 1 && k <= n && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// dropUnknownMarkers removes from the answer the numbers of its markers outside 1..n, and a marker left
// with none: a model that cites [5] of four sources would otherwise show a link to a source that is not
// there. A marker keeps its other numbers ("[1, 5]" becomes "[1]").
func dropUnknownMarkers(answer string, n int) string {
	var b strings.Builder
	last := 0
	for _, loc := range spacedMarker.FindAllStringIndex(answer, -1) {
		m := answer[loc[0]:loc[1]]
		if strings.HasPrefix(answer[loc[1]:], "(") {
			continue // "[9](http://...)" is a link's text, which the page shows as text, not a marker
		}
		b.WriteString(answer[last:loc[0]])
		b.WriteString(knownMarker(m, n))
		last = loc[1]
	}
	b.WriteString(answer[last:])
	return b.String()
}

// knownMarker is marker m (with the spaces before it) keeping only its numbers in 1..n, "" when none.
func knownMarker(m string, n int) string {
	open := strings.IndexByte(m, '[')
	var keep []string
	parts := markerParts(m[open+1 : len(m)-1])
	for _, part := range parts {
		if k, err := strconv.Atoi(part); err == nil && k >= 1 && k <= n {
			keep = append(keep, part)
		}
	}
	switch {
	case len(keep) == len(parts):
		return m
	case len(keep) == 0:
		return "" // with the space before it: "600 EUR [5]." reads "600 EUR."
	}
	return m[:open] + "[" + strings.Join(keep, ", ") + "]"
}

// spacedMarker is a citation marker with the spaces before it.
var spacedMarker = regexp.MustCompile(`\s*` + citeMarker.String())

// citations describes the sources the answer cites.
func citations(answer string, srcs []source) []Citation {
	var out []Citation
	for _, n := range cited(answer, len(srcs)) {
		out = append(out, citation(n, srcs[n-1]))
	}
	return out
}

func citation(n int, s source) Citation {
	switch s.kind {
	case KindFact:
		c := Citation{N: n, Kind: KindFact, FactID: s.fact.ID, Sentence: s.fact.Sentence,
			Entities: []string{s.fact.Relation.SourceName, s.fact.Relation.TargetName}}
		if len(s.fact.Sources) > 0 {
			ch := s.fact.Sources[0]
			c.ChunkID, c.DocID, c.DocName, c.Section, c.Snippet = ch.ID, ch.DocID, docName(ch), strings.Join(ch.Section, " › "), clip(ch.Text, 240)
			c.Page = ch.Page
		} else {
			c.ChunkID, c.DocID = first(s.fact.Relation.ChunkIDs), first(s.fact.Relation.DocIDs)
		}
		return c
	case KindWeb:
		return Citation{N: n, Kind: KindWeb, URL: s.web.URL, Title: s.web.Title, Snippet: clip(s.web.Snippet, 240)}
	default:
		return Citation{N: n, Kind: KindChunk, ChunkID: s.chunk.ID, DocID: s.chunk.DocID, DocName: docName(s.chunk),
			Section: strings.Join(s.chunk.Section, " › "), Snippet: clip(s.chunk.Text, 240), Page: s.chunk.Page}
	}
}

func first(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	return ss[0]
}

func factRef(f graphrag.Fact) FactRef {
	return FactRef{ID: f.ID, Sentence: f.Sentence, Entities: []string{f.Relation.SourceName, f.Relation.TargetName},
		ChunkIDs: f.Relation.ChunkIDs}
}
