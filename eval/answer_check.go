package eval

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hopwise/hopwise/agent"
)

// Verdict is what the scorer made of one answer.
type Verdict struct {
	Correct  bool `json:"correct"`
	Refusal  bool `json:"refusal"`   // the answer declines (see IsRefusal)
	WebCited bool `json:"web_cited"` // the answer cites a web page
	// Hedged: the answer's first sentence holds a string of answer_must_not_contain (it names a wrong
	// tier or both alternatives), so it is not correct whatever else it says.
	Hedged bool `json:"hedged,omitempty"`
}

// Judge scores an answer against its question:
//   - factual, exact_id and multi_hop: correct when the answer is no refusal, contains, for every group
//     of answer_must_contain, one of its strings (see Mentions), and its first sentence holds none of the
//     strings of answer_must_not_contain (an answer that opens with every option has not chosen);
//   - out_of_corpus: correct when the answer is a refusal or cites a web page (the web fallback answered);
//   - unanswerable: correct only when the answer is a refusal: nothing can answer these, so an answer
//     citing the web is a guess.
func Judge(q Question, res agent.Result) Verdict {
	v := Verdict{Refusal: IsRefusal(res)}
	for _, c := range res.Citations {
		if c.Kind == agent.KindWeb {
			v.WebCited = true
		}
	}
	switch q.Category {
	case OutOfCorpus:
		v.Correct = v.Refusal || v.WebCited
	case Unanswerable:
		v.Correct = v.Refusal
	default:
		v.Hedged = mentionsAny(opening(res.Answer), q.AnswerMustNotContain)
		v.Correct = !v.Refusal && !v.Hedged && mentionsAll(res.Answer, q.AnswerMustContain)
	}
	return v
}

func mentionsAny(text string, needles []string) bool {
	for _, s := range needles {
		if Mentions(text, s) {
			return true
		}
	}
	return false
}

func mentionsAll(answer string, groups [][]string) bool {
	for _, g := range groups {
		ok := false
		for _, s := range g {
			ok = ok || Mentions(answer, s)
		}
		if !ok {
			return false
		}
	}
	return true
}

// Mentions reports whether text contains needle, ignoring case and markdown emphasis, as words: the
// needle may not start inside a word or end inside a number ("250" is not in "1250" or "2500", "S1" not
// in "S10"), and a needle ending in a word of one or two letters may not be followed by more letters ("no"
// is not in "not" or "Northlight"); a longer final word may go on ("volunteer" is in "volunteers",
// "40 min" in "40 minutes").
func Mentions(text, needle string) bool {
	text = strings.ToLower(strings.NewReplacer("**", "", "__", "", "`", "").Replace(text))
	needle = strings.ToLower(strings.TrimSpace(needle))
	if needle == "" {
		return false
	}
	lastWord := needle[strings.LastIndexFunc(needle, func(r rune) bool { return !isWordRune(r) })+1:]
	strictEnd := len(lastWord) <= 2 || endsInDigit(needle)
	for from := 0; ; {
		i := strings.Index(text[from:], needle)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(needle)
		if !wordBefore(text, start) && !(strictEnd && wordAfter(text, end, needle)) {
			return true
		}
		from = start + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func endsInDigit(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsDigit(r)
}

// wordBefore reports a letter or digit just before i (the needle would start inside a word).
func wordBefore(text string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	n, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r) && isWordRune(n)
}

// wordAfter reports that the needle's last word goes on after end: more letters after a letter, more
// digits (also after a thousands separator) after a digit.
func wordAfter(text string, end int, needle string) bool {
	if end >= len(text) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(needle)
	next, size := utf8.DecodeRuneInString(text[end:])
	if unicode.IsDigit(last) {
		if next == ',' || next == '.' {
			after, _ := utf8.DecodeRuneInString(text[end+size:])
			return unicode.IsDigit(after)
		}
		return unicode.IsDigit(next) || unicode.IsLetter(next) && unicode.IsLetter(last)
	}
	return isWordRune(last) && isWordRune(next)
}

// refusalSubject is what a refusal says cannot answer: the sources, never a subject of the question (so
// "EU261 does not cover this flight" is an answer, not a refusal).
const refusalSubject = `(?:sources?|documents?|context|passages?|texts?|materials?|records?|files?|(?:web )?search results?|results|they)`

// refusalPhrase finds, in an answer's opening, a statement that the sources or the assistant cannot
// answer: "the documents do not cover", "I could not find", "cannot be answered", "no information about".
var refusalPhrase = regexp.MustCompile(`(?i)\b(?:` +
	refusalSubject + ` (?:do|does|did)(?: not|n't) (?:cover|answer|contain|mention|say|state|include|provide|specify|give|tell)|` +
	`(?:i|we) (?:could|can)(?: not|n't|not) (?:find|answer|determine|tell|say)|` +
	`cannot be (?:answered|determined)|` +
	`(?:no|not enough|insufficient) (?:information|data|details|mention|record)|` +
	`(?:unable|not able) to (?:answer|find|determine)|` +
	`not (?:mentioned|stated|specified|covered|found) (?:in|by) (?:the |your |any |these )?` + refusalSubject + `|` +
	`i (?:do not|don't) know|will not guess` +
	`)\b`)

// IsRefusal reports an answer that declines to answer: the agent's own "not found" (Result.NotFound), or
// an answer whose opening, its first sentence as the generation prompt asks for the direct answer first,
// says the sources or the assistant cannot answer. A refusal of a part later in the answer ("the sources
// do not say when") does not make the whole answer a refusal.
func IsRefusal(res agent.Result) bool {
	return res.NotFound || refusalPhrase.MatchString(opening(res.Answer))
}

// sentenceStop ends the opening sentence: a full stop, question or exclamation mark before a space, or a
// blank line.
var sentenceStop = regexp.MustCompile(`[.!?](?:\s|$)|\n\s*\n`)

// opening is the answer's first sentence, after any "*From general knowledge ...*" style preamble.
func opening(answer string) string {
	s := strings.TrimSpace(answer)
	if strings.HasPrefix(s, "*") {
		if i := strings.Index(s[1:], "*"); i >= 0 && strings.Contains(s[:i+1], "general knowledge") {
			s = strings.TrimSpace(s[i+2:])
		}
	}
	if loc := sentenceStop.FindStringIndex(s); loc != nil {
		return s[:loc[0]]
	}
	return s
}
