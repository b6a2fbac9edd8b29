package sqlite

import (
	"strings"
	"unicode"
)

// maxQueryTerms bounds the terms of one full-text query, so a pasted page costs no more than a question.
const maxQueryTerms = 32

// ftsTerm is one term of a full-text query: a word, or the parts of a word joined by punctuation, lower
// case, holding only letters, digits and marks.
type ftsTerm struct {
	text   string
	phrase bool
}

// quoted is the term as an FTS5 string, which FTS5 reads as words, never as syntax.
func (t ftsTerm) quoted() string { return `"` + t.text + `"` }

// ftsTerms splits plain words from people or models into terms that cannot carry FTS syntax: a word
// joined by punctuation, such as TRV-117 or FIN-EXP-2024-07, becomes a phrase of its parts, which the
// tokenizer also splits the text into, so the identifier matches only where its parts stand together.
// Stop words are left out when another term remains: BM25 gives words found in most chunks almost no
// weight, yet each costs a score for every chunk holding it. Repeats count once; at most maxQueryTerms.
func ftsTerms(text string) []ftsTerm {
	var terms, stops []ftsTerm
	seen := map[string]bool{}
	for _, word := range strings.Fields(text) {
		parts := strings.FieldsFunc(strings.ToLower(word), func(r rune) bool { return !isTokenRune(r) })
		if len(parts) == 0 {
			continue
		}
		t := ftsTerm{text: strings.Join(parts, " "), phrase: len(parts) > 1}
		if seen[t.text] {
			continue
		}
		seen[t.text] = true
		if !t.phrase && stopWords[t.text] {
			stops = append(stops, t)
			continue
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		terms = stops
	}
	return terms[:min(len(terms), maxQueryTerms)]
}

// ftsMatch is the FTS5 query that ORs the terms, so BM25 ranks rows by how many and how rare the terms
// they hold; "" when there are none.
func ftsMatch(terms []ftsTerm) string {
	quoted := make([]string, len(terms))
	for i, t := range terms {
		quoted[i] = t.quoted()
	}
	return strings.Join(quoted, " OR ")
}

// ftsQuery is ftsMatch of ftsTerms of text.
func ftsQuery(text string) string { return ftsMatch(ftsTerms(text)) }

// isTokenRune reports whether FTS5's unicode61 tokenizer keeps r inside a token (letters, numbers,
// private-use characters and the combining marks it folds away).
func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r) || unicode.Is(unicode.Mn, r)
}

// stopWords are English, German and French function words and question words, lower case.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a about after all also am an and any are as at be because been before being between both but by
		can could did do does doing during each for from had has have having he her here his how i if in
		into is it its me my of on or other our should so some such than that the their them then there
		these they this those through to too was we were what when where which while who whom why will
		with would you your
		aber als am an auch auf aus bei bin bis das dass dem den der des die dir du ein eine einem einen
		einer eines er es für hat ich ihr im ist kann mit nach nicht noch oder sich sie sind so über um und
		uns von vor war was wie wir wird zu zum zur
		au aux avec ce ces dans de des du elle en est et il je la le les leur mais ne nous on ou par pas
		pour qu que qui sa se ses son sur un une vous`) {
		m[w] = true
	}
	return m
}()
