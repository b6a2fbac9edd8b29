package agent

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Attribution by wording, for answers written without any [n] marker. Small local models (the 135M
// default) never write markers, whatever the prompt says; a reader still needs to see where each statement
// comes from and which ones come from nowhere. Each sentence is matched to the source that shares the
// most of its content words; a sentence is cited only when that source holds at least minShared of them
// and at least half. Sentences that match no source, or that state a number no source contains, are
// reported as unmatched.
const minShared = 3

// attribution is what attribute made of an answer.
type attribution struct {
	answer    string   // the answer with [n] after each matched sentence
	matched   []int    // source numbers cited by wording, ascending
	unmatched []string // sentences no source supports by wording
}

// attribute cites by wording the sentences of an answer that cites nothing; it returns ok false when
// the answer already cites a source or there is nothing to match against.
func attribute(answer string, srcs []source) (attribution, bool) {
	if len(srcs) == 0 || strings.TrimSpace(answer) == "" || len(cited(answer, len(srcs))) > 0 {
		return attribution{}, false
	}
	words := make([]map[string]bool, len(srcs))
	numbers := map[string]bool{}
	for i, s := range srcs {
		words[i] = map[string]bool{}
		for _, w := range contentWords(s.text()) {
			words[i][w] = true
			if isNumber(w) {
				numbers[w] = true
			}
		}
	}
	var out attribution
	var b strings.Builder
	for _, sent := range sentences(answer) {
		ws := contentWords(sent)
		best, bestShared := 0, 0
		for i := range srcs {
			shared := 0
			for _, w := range ws {
				if words[i][w] {
					shared++
				}
			}
			if shared > bestShared {
				best, bestShared = i+1, shared
			}
		}
		text := strings.TrimRightFunc(sent, unicode.IsSpace)
		trail := sent[len(text):]
		if len(ws) < minShared { // too short to judge ("Yes.", a heading)
			b.WriteString(sent)
			continue
		}
		supported := bestShared >= minShared && 2*bestShared >= len(ws)
		if supported {
			b.WriteString(insertMarker(text, best) + trail)
			if !slices.Contains(out.matched, best) {
				out.matched = append(out.matched, best)
			}
		} else {
			b.WriteString(sent)
		}
		if !supported || inventsNumber(ws, numbers) {
			out.unmatched = append(out.unmatched, strings.TrimSpace(text))
		}
	}
	slices.Sort(out.matched)
	out.answer = b.String()
	return out, true
}

// insertMarker puts " [n]" before a sentence's final punctuation.
func insertMarker(sent string, n int) string {
	marker := " [" + strconv.Itoa(n) + "]"
	end := strings.TrimRightFunc(sent, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == ':' || r == ';' })
	return end + marker + sent[len(end):]
}

// inventsNumber reports a number in the sentence that no source contains.
func inventsNumber(ws []string, numbers map[string]bool) bool {
	for _, w := range ws {
		if isNumber(w) && !numbers[w] {
			return true
		}
	}
	return false
}

func isNumber(w string) bool {
	return w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// sentences cuts text after ., ! or ? followed by a space, and at line ends; the pieces join back into
// text exactly.
func sentences(text string) []string {
	var out []string
	start := 0
	rs := []rune(text)
	pos := 0 // byte offset of rs[i]
	for i, r := range rs {
		size := len(string(r))
		end := -1
		switch {
		case r == '\n':
			end = pos + size
		case (r == '.' || r == '!' || r == '?') && i+1 < len(rs) && rs[i+1] == ' ':
			end = pos + size + 1 // keep the space with the sentence
		}
		pos += size
		if end > start {
			out = append(out, text[start:end])
			start = end
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// lowerWords splits text into lower-cased runs of letters and digits.
func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// contentWords are the lower-cased words of text that carry meaning: numbers, and words of three letters
// or more that are not among the commonest English words. Each appears once.
func contentWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range lowerWords(text) {
		if seen[w] || stopWords[w] || (len([]rune(w)) < 3 && !isNumber(w)) {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the and for are but not you all any can had her was one our out has him his how its
		may new now see two who did get let put say she too use that with this from they will have been were what when
		where which while your there their them then than these those into onto also each other some such only over
		very just more most much many about after before between because could would should does done both being
		here upon under again further once same own off per via within without across`) {
		m[w] = true
	}
	return m
}()
