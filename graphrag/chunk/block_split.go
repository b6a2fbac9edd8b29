package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit is an indivisible piece of a section for packing: a source span, or
// a table piece assembled from the header and some rows (start = -1).
type unit struct {
	text       string
	start, end int // source span, -1 for an assembled table piece
	at         int // source offset the unit's text comes from: start, or a table piece's first row
	tokens     int
	head       string   // table piece: header and delimiter rows
	rows       []string // table piece: body rows
	rowsAt     []int    // table piece: source offset of each row
}

// splitFunc cuts src[start:end] into consecutive non-blank ranges.
type splitFunc func(src string, start, end int) [][2]int

// units hands the units of a block, in order, to yield, at most budget
// tokens each where the block's structure allows. It stops when yield
// returns false and reports whether it ran to the end.
func (s *splitter) units(b block, budget int, yield func(unit) bool) bool {
	if u, ok := s.spanUnit(b.start, b.end, budget); ok {
		return u.text == "" || yield(u)
	}
	switch b.kind {
	case kindTable:
		return s.tableUnits(b.start, b.end, budget, yield)
	case kindList:
		if len(b.items) == 0 {
			return s.splitSpan(b.start, b.end, budget, yield, byLines, bySentences, byWords)
		}
		for i, item := range b.items {
			end := b.end
			if i+1 < len(b.items) {
				end = b.items[i+1]
			}
			if !s.splitSpan(item, end, budget, yield, byLines, bySentences, byWords) {
				return false
			}
		}
		return true
	case kindParagraph:
		return s.splitSpan(b.start, b.end, budget, yield, bySentences, byWords)
	}
	return s.splitSpan(b.start, b.end, budget, yield, byLines, bySentences, byWords)
}

// spanUnit returns the trimmed span as one unit and whether it fits the
// budget. A span of more than 12 bytes per budget token is taken as too
// large without counting (text averages about 4); at worst such a span is
// split and its pieces packed together again.
func (s *splitter) spanUnit(start, end, budget int) (unit, bool) {
	start, end = trimSpan(s.src, start, end)
	u := unit{text: s.src[start:end], start: start, end: end, at: start}
	if u.text == "" {
		return u, true
	}
	if end-start > 12*budget {
		return u, false
	}
	u.tokens = CountTokens(u.text)
	return u, u.tokens <= budget
}

// splitSpan splits a span with the first splitter that separates it, then
// the pieces still too large with the following ones, and at last by runes.
func (s *splitter) splitSpan(start, end, budget int, yield func(unit) bool, levels ...splitFunc) bool {
	u, ok := s.spanUnit(start, end, budget)
	if u.text == "" {
		return true
	}
	if ok {
		return yield(u)
	}
	for i, split := range levels {
		pieces := split(s.src, u.start, u.end)
		if len(pieces) < 2 {
			continue
		}
		for _, p := range pieces {
			if !s.splitSpan(p[0], p[1], budget, yield, levels[i+1:]...) {
				return false
			}
		}
		return true
	}
	return s.runeUnits(u.start, u.end, budget, yield)
}

// runeUnits cuts a span without white space into pieces of at most budget
// tokens (one rune at least).
func (s *splitter) runeUnits(start, end, budget int, yield func(unit) bool) bool {
	for start < end {
		n := min(end-start, max(budget, 1)*4)
		for {
			n = runeFloor(s.src, start, n)
			t := CountTokens(s.src[start : start+n])
			if t <= budget || n <= utf8.UTFMax {
				if n == 0 {
					_, n = utf8.DecodeRuneInString(s.src[start:end])
					t = CountTokens(s.src[start : start+n])
				}
				if !yield(unit{text: s.src[start : start+n], start: start, end: start + n, at: start, tokens: t}) {
					return false
				}
				break
			}
			n = min(n-1, n*budget/t)
		}
		start += n
	}
	return true
}

// runeFloor shortens n so that src[start:start+n] ends on a rune boundary.
func runeFloor(src string, start, n int) int {
	for n > 0 && start+n < len(src) && !utf8.RuneStart(src[start+n]) {
		n--
	}
	return n
}

// trimSpan narrows a span to exclude leading and trailing white space,
// Unicode spaces included (the same set strings.TrimSpace removes).
func trimSpan(src string, start, end int) (int, int) {
	for start < end {
		r, n := utf8.DecodeRuneInString(src[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(src[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return start, end
}

// spaceAt reports whether a white-space rune starts at i, and its size.
func spaceAt(src string, i, end int) (bool, int) {
	r, n := utf8.DecodeRuneInString(src[i:end])
	return unicode.IsSpace(r), n
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// byLines splits at line ends.
func byLines(src string, start, end int) [][2]int {
	var out [][2]int
	for start < end {
		i := strings.IndexByte(src[start:end], '\n')
		stop := end
		if i >= 0 {
			stop = start + i
		}
		if a, b := trimSpan(src, start, stop); a < b {
			out = append(out, [2]int{a, b})
		}
		start = stop + 1
	}
	return out
}

// bySentences splits after ".", "!", "?" or "…" (with closing quotes and
// brackets) followed by white space, and after CJK full stops.
func bySentences(src string, start, end int) [][2]int {
	var out [][2]int
	from := start
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(src[i:end])
		i += n
		cut := -1
		switch r {
		case '。', '！', '？':
			cut = i
		case '.', '!', '?', '…':
			j := i
			for j < end && strings.ContainsRune(`"')]’”»`, rune(src[j])) {
				j++
			}
			if j < end && isSpace(src[j]) {
				cut = j
			}
		}
		if cut > 0 {
			if a, b := trimSpan(src, from, cut); a < b {
				out = append(out, [2]int{a, b})
			}
			from, i = cut, cut
		}
	}
	if a, b := trimSpan(src, from, end); a < b {
		out = append(out, [2]int{a, b})
	}
	return out
}

// byWords splits at runs of white space.
func byWords(src string, start, end int) [][2]int {
	var out [][2]int
	for i := start; i < end; {
		for i < end {
			sp, n := spaceAt(src, i, end)
			if !sp {
				break
			}
			i += n
		}
		j := i
		for j < end {
			sp, n := spaceAt(src, j, end)
			if sp {
				break
			}
			j += n
		}
		if i < j {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

// tableUnits splits a pipe table between rows; every piece repeats the
// header and delimiter rows. A row is never split, even when it alone
// passes the budget. Text goldmark merged in before the header becomes
// units of its own.
func (s *splitter) tableUnits(start, end, budget int, yield func(unit) bool) bool {
	lines := byLines(s.src, start, end)
	d := 1
	for d < len(lines) && !isDelimiterRow(s.src[lines[d][0]:lines[d][1]]) {
		d++
	}
	if d >= len(lines) {
		return s.splitSpan(start, end, budget, yield, byLines, bySentences, byWords)
	}
	if d > 1 && !s.splitSpan(lines[0][0], lines[d-2][1], budget, yield, byLines, bySentences, byWords) {
		return false
	}
	head := s.src[lines[d-1][0]:lines[d-1][1]] + "\n" + s.src[lines[d][0]:lines[d][1]]
	var rows []string
	var rowsAt []int
	for _, l := range lines[d+1:] {
		rows, rowsAt = append(rows, s.src[l[0]:l[1]]), append(rowsAt, l[0])
	}
	for _, u := range tablePieces(head, lines[d-1][0], rows, rowsAt, budget) {
		if !yield(u) {
			return false
		}
	}
	return true
}

// tablePieces packs rows greedily under head, each piece within budget
// unless a single row does not fit. headAt and rowsAt are the source offsets
// of the header and of each row.
func tablePieces(head string, headAt int, rows []string, rowsAt []int, budget int) []unit {
	headTokens := CountTokens(head)
	if len(rows) == 0 {
		return []unit{{text: head, start: -1, end: -1, at: headAt, tokens: headTokens, head: head}}
	}
	var out []unit
	var cur []string
	first := 0 // index in rows of cur[0]
	est := headTokens
	flush := func(next int) {
		text := head + "\n" + strings.Join(cur, "\n")
		at := rowsAt[first]
		if first == 0 {
			at = headAt // the first piece starts where the table does
		}
		out = append(out, unit{text: text, start: -1, end: -1, at: at, tokens: CountTokens(text), head: head, rows: cur, rowsAt: rowsAt[first:next]})
		cur, est, first = nil, headTokens, next
	}
	for i, r := range rows {
		t := CountTokens(r) + 1
		if len(cur) > 0 && est+t > budget {
			flush(i)
		}
		cur = append(cur, r)
		est += t
	}
	flush(len(rows))
	return out
}

// isDelimiterRow reports whether a line is a table delimiter row: cells
// of dashes with optional alignment colons.
func isDelimiterRow(line string) bool {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for _, c := range cells {
		c = strings.TrimSpace(c)
		c = strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if c == "" || strings.TrimLeft(c, "-") != "" {
			return false
		}
	}
	return strings.ContainsRune(line, '-') && !strings.ContainsFunc(line, unicode.IsLetter)
}
