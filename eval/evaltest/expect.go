package evaltest

import "regexp"

// An expectation is the kind of value a question asks for, by its wording: "how far" a distance, "how
// much" or "how many" a number, "when" or "which year" a year. A reader looks for that kind of value in
// what it reads and misses it in an answer without one.
type expectation struct {
	asks  *regexp.Regexp // the question's wording
	gives *regexp.Regexp // a value of the kind in a text
	what  string         // for critiques
}

var expectations = []expectation{
	{regexp.MustCompile(`(?i)\bhow far\b|\bdistance (?:between|from|to)\b`),
		regexp.MustCompile(`(?i)\d[\d,.]*\s*(?:km|kilomet|miles?)\b|distance_km: \d`), "distance"},
	{regexp.MustCompile(`(?i)\b(?:in )?(?:what|which) year\b|\bwhen\b`),
		regexp.MustCompile(`\b(?:1[89]|20)\d\d\b`), "year"},
	{regexp.MustCompile(`(?i)\bhow (?:much|many|long|old)\b|\bwhat (?:amount|number|share|percentage)\b`),
		regexp.MustCompile(`\d`), "number"},
}

// expects returns what question asks for, or nil when its wording does not say.
func expects(question string) *expectation {
	for i, e := range expectations {
		if e.asks.MatchString(question) {
			return &expectations[i]
		}
	}
	return nil
}

// givenBy reports whether text holds a value of the kind (always true without an expectation).
func (e *expectation) givenBy(text string) bool {
	return e == nil || e.gives.MatchString(stripCitations(text))
}
