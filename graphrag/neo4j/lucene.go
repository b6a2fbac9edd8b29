package neo4j

import (
	"strings"
	"unicode"
)

// maxQueryWords bounds the clauses of a full-text query (Lucene refuses more than 1024).
const maxQueryWords = 64

// luceneQuery turns plain words into a Lucene query that matches any of them, with every character
// the query parser would read as syntax escaped. A word with inner punctuation, such as the identifier
// TRV-117, is searched as a phrase of its parts, as the embedded store does, so a chunk that only shares
// one part (TRV-118) does not match. It returns "" when no word has a letter or digit.
func luceneQuery(text string) string {
	var clauses []string
	for _, word := range strings.Fields(text) {
		if !hasWordRune(word) {
			continue
		}
		if len(clauses) >= maxQueryWords {
			break
		}
		// Upper-case AND, OR and NOT are operators; the analyzer lower-cases the text anyway.
		word = strings.ToLower(word)
		if isCompound(word) {
			clauses = append(clauses, `"`+phraseEscape(word)+`"`)
			continue
		}
		clauses = append(clauses, luceneEscape(word))
	}
	return strings.Join(clauses, " ")
}

// luceneSpecial holds the characters the Lucene classic query parser gives a meaning to.
const luceneSpecial = `+-&|!(){}[]^"~*?:\/`

// luceneEscape backslash-escapes every query-parser special character of s.
func luceneEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(luceneSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// phraseEscape escapes what ends or escapes inside a quoted phrase.
func phraseEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

func hasWordRune(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// isCompound reports whether punctuation joins word characters inside s, so the analyzer splits it into
// several tokens.
func isCompound(s string) bool {
	trimmed := strings.TrimFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.IndexFunc(trimmed, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0
}
