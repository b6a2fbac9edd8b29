package chunk

import (
	"strings"
	"unicode/utf8"
)

// splitter accumulates the chunks of one document.
type splitter struct {
	src    string
	title  string
	opt    Options
	chunks []Chunk
}

// section turns one section into chunks.
func (s *splitter) section(sec section) {
	head := s.prefixText(prefix(s.title, sec.path))
	headTokens := 0
	if head != "" {
		headTokens = CountTokens(head)
	}
	budget := max(1, s.opt.MaxTokens-headTokens-2)
	var units []unit
	for _, b := range sec.blocks {
		units = append(units, s.units(b, budget)...)
	}
	if len(units) == 0 && sec.heading != nil {
		units = s.splitSpan(sec.heading.start, sec.heading.end, budget, byWords)
	}
	s.pack(units, head, headTokens, sec.path)
}

// prefixText is the "title > section" line and blank line that start each
// chunk's Text, cut to half the token budget when headings are very long.
func (s *splitter) prefixText(p string) string {
	if p == "" {
		return ""
	}
	limit := s.opt.MaxTokens / 2
	if CountTokens(p+"\n\n") <= limit {
		return p + "\n\n"
	}
	lo, hi := 0, utf8.RuneCountInString(p)
	runes := []rune(p)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if CountTokens(string(runes[:mid])+"…\n\n") <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo]) + "…\n\n"
}

// pack fills chunks greedily with units, in order. The estimate adds unit
// token counts; each chunk's exact count is then checked, handing units
// back (or splitting a lone unit further) until it fits.
func (s *splitter) pack(queue []unit, head string, headTokens int, path []string) {
	limit := s.opt.MaxTokens
	for len(queue) > 0 {
		k, est := 0, headTokens
		for k < len(queue) {
			add := queue[k].tokens
			if k > 0 {
				add++
			}
			if k > 0 && est+add > limit {
				break
			}
			est += add
			k++
		}
		var text string
		var tokens int
		for {
			text = head + s.join(queue[:k])
			tokens = CountTokens(text)
			if tokens <= limit || k == 1 {
				break
			}
			k--
		}
		if tokens > limit && k == 1 {
			if pieces := s.resplit(queue[0], queue[0].tokens-(tokens-limit)-1); len(pieces) > 1 {
				queue = append(pieces, queue[1:]...)
				continue
			}
		}
		section := append([]string{}, path...)
		s.chunks = append(s.chunks, Chunk{
			Ordinal: len(s.chunks), Section: section, Body: text[len(head):], Text: text, Tokens: tokens,
		})
		queue = queue[k:]
	}
}

// join rebuilds the body from units: source spans keep the white space
// between them (a blank line at most); assembled pieces are set apart by a
// blank line.
func (s *splitter) join(units []unit) string {
	var b strings.Builder
	for i, u := range units {
		if i > 0 {
			b.WriteString(s.gap(units[i-1], u))
		}
		b.WriteString(u.text)
	}
	return b.String()
}

func (s *splitter) gap(prev, next unit) string {
	if prev.start < 0 || next.start < 0 || next.start < prev.end {
		return "\n\n"
	}
	g := s.src[prev.end:next.start]
	if strings.Count(g, "\n") >= 2 || strings.TrimSpace(g) != "" {
		return "\n\n"
	}
	return g
}

// resplit cuts a unit that passed the budget once joined with the prefix
// into smaller units; it returns one unit when it cannot be cut.
func (s *splitter) resplit(u unit, budget int) []unit {
	budget = max(1, budget)
	if u.start < 0 {
		if len(u.rows) < 2 {
			return []unit{u}
		}
		return tablePieces(u.head, u.rows, budget)
	}
	return s.splitSpan(u.start, u.end, budget, bySentences, byWords)
}
