package pdf

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pdfLine is one line of extracted text with the largest font size on it;
// para marks the first line of a paragraph.
type pdfLine struct {
	text string
	size float64
	para bool
	page int // 1-based
}

// pdfTextOut lays out the strings shown on a page as lines and paragraphs,
// from their device-space positions: a vertical move starts a line, a
// larger one (or a move up) a paragraph, a horizontal gap adds a space.
type pdfTextOut struct {
	lines     []pdfLine
	cur       strings.Builder
	curSize   float64
	curPara   bool
	have      bool
	bytes     int
	lastY     float64
	lastStart float64
	lastEnd   float64
	lastText  string
	step      float64 // usual distance between lines so far
}

func (o *pdfTextOut) add(text string, x, y, end, size float64) {
	text = cleanPDFText(text)
	if text == "" {
		return
	}
	if !finite(x) || !finite(y) || !finite(end) {
		x, y, end = o.lastEnd, o.lastY, o.lastEnd
	}
	if !o.have {
		o.curPara = true
	} else {
		dy := o.lastY - y
		switch {
		case math.Abs(dy) > 0.5*size:
			para := dy < 0 || o.step > 0 && dy > 1.6*o.step || o.step == 0 && dy > 2*size
			if !para {
				o.step = dy
			}
			o.endLine(para)
		case text == o.lastText && math.Abs(x-o.lastStart) < 0.5*size:
			return // the same string drawn again, a little offset (fake bold)
		case x-o.lastEnd > 0.15*size && !strings.HasSuffix(o.cur.String(), " ") && !strings.HasPrefix(text, " "):
			o.cur.WriteByte(' ')
		}
	}
	o.cur.WriteString(text)
	o.bytes += len(text)
	o.curSize = math.Max(o.curSize, size)
	o.have = true
	o.lastY, o.lastStart, o.lastEnd, o.lastText = y, x, end, text
}

// endLine closes the current line; the next one starts a paragraph if para.
func (o *pdfTextOut) endLine(para bool) {
	if t := strings.Join(strings.Fields(o.cur.String()), " "); t != "" {
		o.lines = append(o.lines, pdfLine{text: t, size: o.curSize, para: o.curPara})
		o.curPara = para
	} else {
		o.curPara = o.curPara || para
	}
	o.cur.Reset()
	o.curSize = 0
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// ligatures spells out the typographic ligatures, so that a search for
// "finance" finds a PDF's "ﬁnance": Unicode's (U+FB00..U+FB06) and the
// private-use fi and fl that Apple's and Adobe's older fonts use, which
// Chromium's ToUnicode maps still give.
var ligatures = strings.NewReplacer("\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl",
	"\uFB05", "st", "\uFB06", "st", "\uF001", "fi", "\uF002", "fl")

// cleanPDFText spells out ligatures, turns control characters into spaces
// and drops the replacement character and private-use code points (except
// the Symbol font bullet).
func cleanPDFText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\u00a0':
			return ' '
		case r == '\uF0B7':
			return '•'
		case r == '\uFFFD' || unicode.IsControl(r) || r >= 0xE000 && r <= 0xF8FF:
			return -1
		}
		return r
	}, ligatures.Replace(s))
}

var pdfBullets = []string{"•", "●", "▪", "◦", "‣", "∙", "■", "□", "➢", "►", "- ", "– ", "* "}

// bulletItem reports whether a line is a list item and returns its text.
func bulletItem(line string) (string, bool) {
	for _, b := range pdfBullets {
		if rest, ok := strings.CutPrefix(line, b); ok {
			if rest = strings.TrimSpace(rest); rest != "" {
				return rest, true
			}
		}
	}
	return "", false
}

// writePDFLines writes a document's lines as Markdown: short paragraphs set
// clearly larger than the body text become headings (the largest size #,
// then ## and ###), bulleted lines list items, the rest paragraphs.
func writePDFLines(w Writer, lines []pdfLine) {
	body := bodySize(lines)
	var paras [][]pdfLine
	for i, l := range lines {
		sizeJump := i > 0 && math.Abs(l.size-lines[i-1].size) > 0.2*body
		if l.para || sizeJump || len(paras) == 0 {
			paras = append(paras, nil)
		}
		paras[len(paras)-1] = append(paras[len(paras)-1], l)
	}
	levels := headingLevels(paras, body)
	for _, p := range paras {
		if p[0].page > 0 {
			w.Page(p[0].page) // a page's first line always starts a paragraph
		}
		if lvl := levels[roundSize(p[0].size)]; lvl > 0 && isPDFHeading(p, body) {
			texts := make([]string, len(p))
			for i, l := range p {
				texts[i] = l.text
			}
			w.Heading(lvl, strings.Join(texts, " "))
			continue
		}
		writePDFParagraph(w, p)
	}
}

func writePDFParagraph(w Writer, p []pdfLine) {
	var lines []string
	item := false
	flush := func() {
		if len(lines) == 0 {
			return
		}
		if item {
			w.ListItem(0, strings.Join(lines, " "))
		} else {
			w.Paragraph(strings.Join(lines, "\n"))
		}
		lines = nil
	}
	for _, l := range p {
		if rest, ok := bulletItem(l.text); ok {
			flush()
			item = true
			lines = append(lines, rest)
			continue
		}
		lines = append(lines, l.text)
	}
	flush()
}

func roundSize(s float64) float64 { return math.Round(s*2) / 2 }

// bodySize is the font size that sets the most characters.
func bodySize(lines []pdfLine) float64 {
	count := map[float64]int{}
	best, bestN := 0.0, 0
	for _, l := range lines {
		s := roundSize(l.size)
		count[s] += utf8.RuneCountInString(l.text)
		if count[s] > bestN || count[s] == bestN && s < best {
			best, bestN = s, count[s]
		}
	}
	return best
}

func isPDFHeading(p []pdfLine, body float64) bool {
	if body <= 0 || len(p) > 2 {
		return false
	}
	n := 0
	for _, l := range p {
		if l.size < 1.2*body {
			return false
		}
		n += utf8.RuneCountInString(l.text)
	}
	return n <= 150
}

// headingLevels ranks the sizes of heading-like paragraphs, largest first.
func headingLevels(paras [][]pdfLine, body float64) map[float64]int {
	seen := map[float64]bool{}
	var sizes []float64
	for _, p := range paras {
		if s := roundSize(p[0].size); isPDFHeading(p, body) && !seen[s] {
			seen[s] = true
			sizes = append(sizes, s)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(sizes)))
	levels := map[float64]int{}
	for i, s := range sizes {
		levels[s] = min(i+1, 3)
	}
	return levels
}
