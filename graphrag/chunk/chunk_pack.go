package chunk

import (
	"strings"
	"unicode/utf8"
)

// splitter accumulates the chunks of one document. Units flow through a
// queue: a chunk is cut as soon as the queue holds more than fits, so the
// work stops early once the chunk cap is passed.
type splitter struct {
	src    string
	title  string
	opt    Options
	chunks []Piece
	full   bool // more than opt.MaxChunks chunks
	pos    int  // source offset reached by the chunks so far

	queue      []unit
	head       string // Text prefix of the current section
	headTokens int
	path       []string
}

// section turns one section into chunks; it returns false once the chunk
// cap is passed.
func (s *splitter) section(sec section) bool {
	s.head = s.prefixText(prefix(s.title, sec.path))
	s.headTokens = 0
	if s.head != "" {
		s.headTokens = CountTokens(s.head)
	}
	s.path = sec.path
	budget := max(1, s.opt.MaxTokens-s.headTokens-2)
	added := false
	add := func(u unit) bool {
		added = true
		s.queue = append(s.queue, u)
		for !s.full && s.estimate(len(s.queue)) > s.opt.MaxTokens {
			s.cut()
		}
		return !s.full
	}
	for _, b := range sec.blocks {
		if !s.units(b, budget, add) {
			return false
		}
	}
	if !added && sec.heading != nil {
		s.splitSpan(sec.heading.start, sec.heading.end, budget, add, byWords)
	}
	for !s.full && len(s.queue) > 0 {
		s.cut()
	}
	s.pos = max(s.pos, sec.end)
	return !s.full
}

// estimate is the token count of the first k queued units as one chunk,
// prefix and separators included, before the exact count.
func (s *splitter) estimate(k int) int {
	est := s.headTokens
	for i, u := range s.queue[:k] {
		est += u.tokens
		if i > 0 {
			est++
		}
	}
	return est
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

// cut emits one chunk from the front of the queue: the most units the
// estimate allows, then fewer until the exact count fits; a lone unit that
// still passes the cap is split further when it can be.
func (s *splitter) cut() {
	limit := s.opt.MaxTokens
	k := 1
	for k < len(s.queue) && s.estimate(k+1) <= limit {
		k++
	}
	var text string
	var tokens int
	for {
		text = s.head + s.join(s.queue[:k])
		tokens = CountTokens(text)
		if tokens <= limit || k == 1 {
			break
		}
		k--
	}
	if tokens > limit && k == 1 {
		if pieces := s.resplit(s.queue[0], s.queue[0].tokens-(tokens-limit)-1); len(pieces) > 1 {
			s.queue = append(pieces, s.queue[1:]...)
			return
		}
	}
	for _, u := range s.queue[:k] {
		s.pos = max(s.pos, u.end)
	}
	s.chunks = append(s.chunks, Piece{
		Ordinal: len(s.chunks), Section: append([]string{}, s.path...), Body: text[len(s.head):], Text: text, Tokens: tokens,
		Start: s.queue[0].at,
	})
	s.queue = s.queue[k:]
	s.full = len(s.chunks) > s.opt.MaxChunks
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
		return tablePieces(u.head, u.at, u.rows, u.rowsAt, budget)
	}
	var out []unit
	s.splitSpan(u.start, u.end, budget, func(p unit) bool {
		out = append(out, p)
		return true
	}, bySentences, byWords)
	return out
}
