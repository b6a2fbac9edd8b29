package sqlite

import (
	"strings"
	"unicode"
)

// maxQueryTerms bounds the terms of one full-text query, so a pasted page costs no more than a question.
const maxQueryTerms = 32

// ftsQuery turns plain words from people or models into an FTS5 query that cannot carry FTS syntax: each
// word becomes a quoted string of its letters and digits, and the strings are ORed so BM25 ranks chunks by
// how many and how rare the words they hold. A word joined by punctuation, such as TRV-117 or
// FIN-EXP-2024-07, becomes a phrase of its parts, which the tokenizer also splits the text into, so the
// identifier matches only where its parts stand together. It returns "" when nothing is left to search.
func ftsQuery(text string) string {
	var terms []string
	seen := map[string]bool{}
	for _, word := range strings.Fields(text) {
		parts := strings.FieldsFunc(word, func(r rune) bool { return !isTokenRune(r) })
		if len(parts) == 0 {
			continue
		}
		term := `"` + strings.ToLower(strings.Join(parts, " ")) + `"`
		if seen[term] {
			continue
		}
		seen[term] = true
		terms = append(terms, term)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return strings.Join(terms, " OR ")
}

// isTokenRune reports whether FTS5's unicode61 tokenizer keeps r inside a token (letters, numbers,
// private-use characters and the combining marks it folds away).
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Mn, r)
}
