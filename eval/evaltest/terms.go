package evaltest

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// term is a word that carries meaning: a name (capitalised, or holding a digit, like Lisbon, EU261,
// TRV-117) or a content word. Terms are compared by stem.
type term struct {
	text string // as written
	stem string
	name bool
}

// wordSpans returns the [start, end) offsets of the words of text: runs of letters and digits joined by
// single inner hyphens, apostrophes and number separators (TRV-117, 5,921, Vogt's).
func wordSpans(text string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if start < 0 {
				start = i
			}
		case start >= 0 && isJoiner(r) && i > start && joinsWord(text, i+utf8.RuneLen(r)):
			// a joiner between two word runes stays inside the word
		default:
			if start >= 0 {
				out = append(out, [2]int{start, i})
				start = -1
			}
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

func isJoiner(r rune) bool { return r == '-' || r == '\'' || r == '’' || r == '.' || r == ',' }

// joinsWord reports a letter or digit at i.
func joinsWord(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// words returns the words of text.
func words(text string) []string {
	spans := wordSpans(text)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = text[sp[0]:sp[1]]
	}
	return out
}

// stopwords carry no meaning of their own in a question or a passage.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for from with without into onto
		is are was were be been being am do does did done have has had can could may might must shall should
		will would i me my mine we our you your he she him his her it its they them their this that these those
		what which who whom whose when where why how much many more most some any all no not yes there here as
		than then so about after before over under between up down out off again per via get got receive
		also only just very there's it's i'm what's let please tell know want need like one two
		hello hi hey thanks thank bye goodbye ok okay`) {
		m[w] = true
	}
	return m
}()

// synonyms folds stems a reader takes for the same thing (a question's "how far" asks for a distance).
var synonyms = map[string]string{"far": "distance", "allow": "permit", "permitt": "permit"}

// key is what terms are compared by: the stem, with synonyms folded.
func key(lowerWord string) string {
	st := stem(lowerWord)
	if s, ok := synonyms[st]; ok {
		return s
	}
	return st
}

// terms returns the distinct terms of a question or query, in order: there a capitalised word that is not
// a stop word is a name wherever it stands ("Lufthansa Delhi Munich").
func terms(text string) []term { return scan(text, false) }

// passageTerms returns the distinct terms of a passage, where a capitalised word opening a sentence counts
// as a name only when it is not written in lower case elsewhere in the passage ("Flights are booked").
func passageTerms(text string) []term { return scan(text, true) }

func scan(text string, prose bool) []term {
	lower := map[string]bool{}
	for _, w := range words(text) {
		if r, _ := utf8.DecodeRuneInString(w); unicode.IsLower(r) {
			lower[strings.ToLower(w)] = true
		}
	}
	var out []term
	seen := map[string]bool{}
	for _, w := range words(text) {
		w = trimPossessive(w)
		lw := strings.ToLower(w)
		if stopwords[lw] || len(lw) < 2 && !hasDigit(lw) {
			continue
		}
		t := term{text: w, stem: key(lw), name: isName(w, prose && lower[lw])}
		if !seen[t.stem] {
			seen[t.stem] = true
			out = append(out, t)
		}
	}
	return out
}

func trimPossessive(w string) string {
	for _, s := range []string{"'s", "’s"} {
		w = strings.TrimSuffix(w, s)
	}
	return w
}

func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// isName reports a name: a word holding a digit, a word of two or more capitals, or a capitalised word
// not also written in lower case in the same text (a sentence's first word often is: "Flights are ...").
func isName(w string, seenLower bool) bool {
	if hasDigit(w) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	upper := 0
	for _, c := range w {
		if unicode.IsUpper(c) {
			upper++
		}
	}
	return upper >= 2 || !seenLower
}

// stem folds the common English endings so that "engineers", "engineering" and "engineer" meet, and
// "distances" and "distance".
func stem(w string) string {
	if strings.ContainsFunc(w, unicode.IsDigit) {
		return strings.ReplaceAll(w, ",", "")
	}
	long := func(suffix string) bool { return strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 4 }
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 5:
		return w[:len(w)-3] + "y"
	case long("ing"):
		return w[:len(w)-3]
	case long("ed"):
		return w[:len(w)-2]
	case long("es") && strings.ContainsAny(w[len(w)-3:len(w)-2], "sxz") || long("ches") || long("shes"):
		return w[:len(w)-2]
	case long("s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// stemCache remembers the stems of texts the reader has seen: the same passages come back in every prompt
// of a run. It is emptied when full.
var stemCache = struct {
	sync.Mutex
	m map[string]map[string]bool
}{m: map[string]map[string]bool{}}

const stemCacheSize = 4096

// stems returns the set of stems of every word of text, stop words included, so that passages are
// searched for a term whatever role it plays in them. The set is shared: callers must not change it.
func stems(text string) map[string]bool {
	stemCache.Lock()
	set, ok := stemCache.m[text]
	stemCache.Unlock()
	if ok {
		return set
	}
	set = map[string]bool{}
	for _, w := range words(text) {
		lw := strings.ToLower(trimPossessive(w))
		set[key(lw)] = true
		// a hyphenated word also counts by its parts: "warehouse-automation" holds "automation"
		for _, part := range strings.FieldsFunc(lw, func(r rune) bool { return r == '-' || r == '\'' }) {
			set[key(part)] = true
		}
	}
	stemCache.Lock()
	if len(stemCache.m) >= stemCacheSize {
		stemCache.m = map[string]map[string]bool{}
	}
	stemCache.m[text] = set
	stemCache.Unlock()
	return set
}

// covered returns the terms of ts found in text.
func covered(ts []term, text string) []term {
	have := stems(text)
	var out []term
	for _, t := range ts {
		if have[t.stem] {
			out = append(out, t)
		}
	}
	return out
}

// weightOf is how much of a question terms cover: one for each.
func weightOf(ts []term) int { return len(ts) }

func split(ts []term) (names, content []term) {
	for _, t := range ts {
		if t.name {
			names = append(names, t)
		} else {
			content = append(content, t)
		}
	}
	return names, content
}

func texts(ts []term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.text
	}
	return out
}

// minus returns the terms of a whose stems are not among b's.
func minus(a, b []term) []term {
	drop := map[string]bool{}
	for _, t := range b {
		drop[t.stem] = true
	}
	var out []term
	for _, t := range a {
		if !drop[t.stem] {
			out = append(out, t)
		}
	}
	return out
}
