package evaltest

import (
	"regexp"
	"strings"
)

// sentenceEnd ends a sentence: punctuation followed by a space and a capital, digit or list marker.
var sentenceEnd = regexp.MustCompile(`[.!?]\s+`)

var listItem = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)

// passage is a unit of text with the headings it stands under, which say what it is about.
type passage struct {
	text, context string
}

// passages splits a source into units (see units), each with its headings: the "<title> > <section
// path>" line a chunk opens with and the markdown headings above the unit.
func passages(text string) []passage {
	lines := strings.Split(text, "\n")
	title := ""
	// a chunk opens with "<title> > <section path>" and a blank line: a heading, not content
	if len(lines) > 2 && strings.TrimSpace(lines[1]) == "" && !strings.HasSuffix(strings.TrimSpace(lines[0]), ".") {
		title, lines = strings.TrimSpace(lines[0]), lines[2:]
	}
	var out []passage
	heading := ""
	var block []string
	flush := func() {
		for _, u := range units(strings.Join(block, "\n")) {
			out = append(out, passage{text: u, context: strings.TrimSpace(title + " " + heading)})
		}
		block = nil
	}
	for _, l := range lines {
		if h, ok := strings.CutPrefix(strings.TrimSpace(l), "#"); ok {
			flush()
			heading = strings.TrimLeft(h, "# ")
			continue
		}
		block = append(block, l)
	}
	flush()
	return out
}

// units splits text into what a reader takes in at once: sentences of prose; a sentence ending in a colon
// together with the list that follows it; each table row read with its header ("city: Lisbon; country:
// Portugal; distance from Munich: 1,964 km"). Markdown headings are left out.
func units(text string) []string {
	lines := strings.Split(text, "\n")
	var (
		out    []string
		para   []string
		header []string
	)
	flush := func() {
		if len(para) > 0 {
			out = append(out, sentences(strings.Join(para, " "))...)
			para = nil
		}
	}
	for _, raw := range lines {
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			flush()
			header = nil
		case strings.HasPrefix(line, "|"):
			flush()
			cells := tableCells(line)
			switch {
			case header == nil:
				header = cells
			case strings.Trim(strings.Join(cells, ""), "-: ") == "":
			default:
				out = append(out, tableRow(header, cells))
			}
		case listItem.MatchString(line):
			item := listItem.ReplaceAllString(line, "")
			if len(para) > 0 && strings.HasSuffix(para[len(para)-1], ":") || len(para) > 0 && strings.HasSuffix(para[len(para)-1], ";") {
				para = append(para, item+";")
				continue
			}
			flush()
			if len(out) > 0 && (strings.HasSuffix(out[len(out)-1], ":") || strings.HasSuffix(out[len(out)-1], ";")) {
				out[len(out)-1] += " " + item + ";"
				continue
			}
			out = append(out, item)
		default:
			header = nil
			para = append(para, line)
		}
	}
	flush()
	for i := range out {
		out[i] = strings.TrimSuffix(strings.TrimSpace(out[i]), ";")
	}
	return out
}

// sentences splits prose, keeping a sentence that ends in a colon as the start of a unit the next
// sentence or list continues.
func sentences(p string) []string {
	var out []string
	prev := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(p, -1) {
		out = append(out, strings.TrimSpace(p[prev:loc[0]+1]))
		prev = loc[1]
	}
	if rest := strings.TrimSpace(p[prev:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

func tableCells(line string) []string {
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func tableRow(header, cells []string) string {
	parts := make([]string, 0, len(cells))
	for i, c := range cells {
		h := "column"
		if i < len(header) {
			h = header[i]
		}
		parts = append(parts, h+": "+c)
	}
	return strings.Join(parts, "; ")
}
