package agent

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/hopwise/hopwise/graphrag"
)

// Claim check: a sentence of an answer counts as supported only when the things it names appear together
// in one source. Small models join a subject from one passage to an object from another ("The chief
// executive of Lufthansa is Lena Vogt": Lufthansa from the airline registry, Lena Vogt from the company
// history); every word of such a sentence is in some source, so matching by wording lets it through. Here
// each anchor of a sentence (a name, an identifier, a number) must appear in some source, and, when the
// sentence names two or more, share one source with at least one other anchor of the sentence. A sentence
// that joins facts of several sources ("600 EUR, since Delhi-Munich is 5,921 km, over 3,500 km") passes:
// 600 shares a source with 3,500, Delhi with Munich and 5,921.

// anchorToken finds words, identifiers and numbers with thousands separators or decimals.
var anchorToken = regexp.MustCompile(`[\p{L}\p{N}][\p{L}\p{N}'’\-]*(?:[.,]\p{N}+)*`)

// starters are capitalised words that begin sentences without naming anything.
var starters = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an i in on at of to by no yes so as if it is or under according based
		therefore thus hence because since for from with without passengers passenger you your they we he she
		this that these those there their the answer however also only both each every all any some none
		flights flight airlines airline an employee employees how what which who whom whose when where why
		does do did are can may must should will would was were has have had`) {
		m[w] = true
	}
	return m
}()

// notAnchors are capitalised words too common in answers to name anything on their own.
var notAnchors = map[string]bool{"eur": true, "euro": true, "euros": true, "usd": true, "km": true, "sources": true, "source": true}

// anchors returns the things a sentence names, normalised for matching: runs of capitalised words
// ("Lena Vogt", "Munich Airport"), identifiers and numbers ("TRV-117", "S8", "5921", "1"). Citation markers
// and markdown are ignored.
func anchors(sentence string) []string {
	s := citeMarker.ReplaceAllString(sentence, " ")
	s = strings.NewReplacer("**", " ", "__", " ", "`", " ", "*", " ").Replace(s)
	toks := anchorToken.FindAllStringIndex(s, -1)
	var out []string
	seen := map[string]bool{}
	add := func(a string) {
		a = normAnchor(a)
		if a != "" && !seen[a] && !notAnchors[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	var run []string
	flush := func() {
		if len(run) > 0 {
			add(strings.Join(run, " "))
			run = run[:0]
		}
	}
	for i, loc := range toks {
		tok := strings.TrimRight(s[loc[0]:loc[1]], "'’-")
		if tok == "" {
			continue
		}
		first := []rune(tok)[0]
		gap := i > 0 && strings.TrimSpace(s[toks[i-1][1]:loc[0]]) != "" // punctuation between tokens ends a run
		if gap {
			flush()
		}
		switch {
		case strings.IndexFunc(tok, unicode.IsDigit) >= 0:
			flush()
			add(tok)
		case unicode.IsUpper(first):
			if len(run) == 0 && starters[strings.ToLower(tok)] {
				continue // "The", "Yes", "Passengers" open a sentence without naming anything
			}
			if base, ok := cutPossessive(tok); ok {
				run = append(run, base)
				flush() // "Nexa AI's Series B round": the owner and the thing owned are two names
				continue
			}
			run = append(run, tok)
		default:
			flush()
		}
	}
	flush()
	return out
}

// cutPossessive returns a word without its possessive 's ("AI's", "Vogt’s").
func cutPossessive(tok string) (string, bool) {
	for _, suf := range []string{"'s", "’s"} {
		if base, ok := strings.CutSuffix(tok, suf); ok && base != "" {
			return base, true
		}
	}
	return tok, false
}

// thousands matches a separator between digit groups ("5,921", "2.150" is left alone).
var thousands = regexp.MustCompile(`(\d),(\d{3})\b`)

// normAnchor lower-cases and drops thousands separators and a possessive 's.
func normAnchor(a string) string {
	a = strings.ToLower(strings.TrimSpace(a))
	a = strings.TrimSuffix(strings.TrimSuffix(a, "'s"), "’s")
	for thousands.MatchString(a) {
		a = thousands.ReplaceAllString(a, "$1$2")
	}
	return strings.Join(strings.Fields(a), " ")
}

// normSource prepares a source's text for anchor matching the way normAnchor prepares anchors.
func normSource(text string) string {
	t := strings.ToLower(text)
	for thousands.MatchString(t) {
		t = thousands.ReplaceAllString(t, "$1$2")
	}
	words := strings.FieldsFunc(t, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '.' && r != '\''
	})
	for i, w := range words {
		words[i] = strings.TrimRight(w, ".") // a full stop ends a sentence, not the word: "Lufthansa Group."
	}
	return " " + strings.Join(words, " ") + " "
}

// holds reports whether a normalised source text contains an anchor as whole words: the phrase itself, or,
// for a name of several words, each of its words. A passage names its place in its heading and then says
// "the airport" ("Munich travel tips > Getting into town: The S-Bahn lines S1 and S8 connect the airport
// with the central station"); the answer's "Munich Airport" stands on it. A name's words are rarely all in a
// source that means something else, and a source is a passage or a table row, not a whole document.
func holds(src, anchor string) bool {
	words := strings.FieldsFunc(anchor, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '.' && r != '\''
	})
	if len(words) == 0 {
		return false
	}
	if strings.Contains(src, " "+strings.Join(words, " ")+" ") {
		return true
	}
	if len(words) < 2 {
		return false
	}
	for _, w := range words {
		if !strings.Contains(src, " "+w+" ") {
			return false
		}
	}
	return true
}

// unsupportedClaims returns the sentences of text whose anchors do not appear together in one source,
// as written; sentences that name nothing are not judged. The anchors of the question, when given, are
// the subject an answer speaks of although it need not repeat it, and the anchors of support (the facts
// listed with an answer, each checked itself) may partner an answer's terse "600 EUR [4]": each anchor of
// a sentence may find its partner among them too. Then the sentence must also reach the subject: one of
// the question's anchors shares a source with one of the sentence's or the support's ("Lena Vogt [1]" to
// "Who is the chief executive of Lufthansa?" does not, whatever Nexa AI fact comes with it).
func unsupportedClaims(text, question, support string, srcs []source) []string {
	norm := claimUnits(srcs)
	var subject []string
	for _, a := range anchors(question) {
		if strings.IndexFunc(a, unicode.IsDigit) < 0 || len(a) > 1 { // "1" in a question anchors nothing
			subject = append(subject, a)
		}
	}
	var backing []string
	for _, sent := range sentences(support) {
		backing = append(backing, anchors(sent)...)
	}
	topic := topicWords(question, norm)
	if len(topic) == 0 && len(askedWords(question)) > 0 {
		// The question asks about something no source mentions ("What is Lena Vogt's home address?" over
		// sources that never say home or address): nothing that names something can answer it.
		topic = askedWords(question)
	}
	tables := tableRows(srcs)
	askedUnit := questionUnit(question)
	var out []string
	for _, sent := range sentences(text) {
		as := anchors(sent)
		if !claimSupported(as, subject, backing, norm) || echoesQuestion(sent, question, norm) || !onTopic(as, backing, topic, norm) ||
			!rowsAgree(as, codes(sent), tables) || !unitsAgree(sent, norm) || !answersUnit(sent, askedUnit) {
			out = append(out, strings.TrimSpace(sent))
		}
	}
	return out
}

// topicWords are the question's words that are not names ("receive", "denied", "boarding" of "How much can I
// receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"), as stems of at most five
// letters ("recei" holds "receives"), kept when some source holds them; none when no source does.
func topicWords(question string, units []string) []string {
	var out []string
	for _, stem := range askedWords(question) {
		for _, u := range units {
			if strings.Contains(u, " "+stem) {
				out = append(out, stem)
				break
			}
		}
	}
	return out
}

// askedWords are the stems of the question's words that are not names or numbers and have at least four
// letters: what it asks about ("home", "addre" of "What is Lena Vogt's home address?").
func askedWords(question string) []string {
	named := map[string]bool{}
	for _, a := range anchors(question) {
		for _, w := range strings.Fields(a) {
			named[w] = true
		}
	}
	var out []string
	for _, w := range contentWords(question) {
		if named[w] || isNumber(w) || len([]rune(w)) < 4 {
			continue
		}
		out = append(out, string([]rune(w)[:min(len([]rune(w)), 5)]))
	}
	return out
}

// tableRows are the rows of each source's tables, normalised, each with its column headers and without the
// passage's heading: a table of the sources per entry.
func tableRows(srcs []source) [][]string {
	var out [][]string
	for _, s := range srcs {
		if s.kind != KindChunk || !strings.Contains(s.text(), "|") {
			continue
		}
		_, rows := graphrag.TableRowTexts(s.text())
		if len(rows) < 2 {
			continue
		}
		norm := make([]string, len(rows))
		for i, r := range rows {
			norm[i] = normSource(r)
		}
		out = append(out, norm)
	}
	return out
}

// codeToken is a code written in capitals, as a table's cells hold them: "AY", "LH", "IATA".
var codeToken = regexp.MustCompile(`\b\p{Lu}{2,4}\b`)

// codes returns the codes a sentence names, normalised as anchors are.
func codes(sentence string) map[string]bool {
	out := map[string]bool{}
	for _, c := range codeToken.FindAllString(citeMarker.ReplaceAllString(sentence, " "), -1) {
		out[normAnchor(c)] = true
	}
	return out
}

// rowsAgree reports whether every value of a sentence (a number, or a code in capitals) that a table holds
// shares a row with one of the sentence's names that this table holds in some rows but not all (a column
// header such as "distance from Munich" is in every row). "Lisbon is 2,642 km from Munich" read 2,642 off
// Tel Aviv's row: Lisbon, Munich and 2,642 are each in the distances table, but 2,642 and Lisbon in no row
// together; "Lufthansa has the IATA code AY" read AY off Finnair's row.
func rowsAgree(as []string, codes map[string]bool, tables [][]string) bool {
	for _, rows := range tables {
		var names, nums []string
		for _, a := range as {
			n := 0
			for _, r := range rows {
				if holds(r, a) {
					n++
				}
			}
			switch {
			case n == 0 || n == len(rows) && codes[a]:
			case strings.IndexFunc(a, unicode.IsDigit) >= 0 || codes[a]:
				nums = append(nums, a)
			case n < len(rows):
				names = append(names, a)
			}
		}
		if len(names) == 0 {
			continue
		}
		for _, num := range nums {
			shared := false
			for _, r := range rows {
				if holds(r, num) && slices.ContainsFunc(names, func(name string) bool { return holds(r, name) }) {
					shared = true
					break
				}
			}
			if !shared {
				return false
			}
		}
	}
	return true
}

// unitWords are the units a number is read with, normalised ("minutes" and "min" compare).
var unitWords = map[string]string{"km": "km", "kilometres": "km", "kilometers": "km", "miles": "miles", "eur": "eur",
	"euro": "eur", "euros": "eur", "usd": "usd", "dollars": "usd", "days": "days", "day": "days", "hours": "hours",
	"hour": "hours", "minutes": "minutes", "min": "minutes", "weeks": "weeks", "week": "weeks", "months": "months",
	"years": "years", "percent": "%", "kg": "kg"}

// unitAfter returns the unit of the number at words[i]: a unit word among the next two words ("24 paid days",
// "600 EUR"), or "" when none is.
func unitAfter(words []string, i int) string {
	for j := i + 1; j < len(words) && j <= i+2; j++ {
		if u, ok := unitWords[words[j]]; ok {
			return u
		}
	}
	return ""
}

// unitsAgree reports whether every number of a sentence that comes with a unit is, in some source, that
// number with that unit or with none: "Chen Wei took 28 vacation days in Germany" read the per diem table's
// "28 EUR in Germany".
func unitsAgree(sentence string, units []string) bool {
	words := strings.Fields(normSource(citeMarker.ReplaceAllString(sentence, " ")))
	for i, w := range words {
		if !isNumber(w) {
			continue
		}
		want := unitAfter(words, i)
		if want == "" {
			continue
		}
		agree, seen := false, false
		for _, u := range units {
			src := strings.Fields(u)
			for j, x := range src {
				if x != w {
					continue
				}
				seen = true
				if got := unitAfter(src, j); got == "" || got == want {
					agree = true
					break
				}
			}
			if agree {
				break
			}
		}
		if seen && !agree {
			return false
		}
	}
	return true
}

// questionUnit returns the unit a "how many" or "how much" question counts in ("How many vacation days did
// Chen Wei take?": days), "" for other questions.
func questionUnit(question string) string {
	words := strings.Fields(normSource(question))
	for i, w := range words {
		if w != "how" || i+1 == len(words) || (words[i+1] != "many" && words[i+1] != "much") {
			continue
		}
		for j := i + 2; j < len(words) && j <= i+4; j++ {
			if u, ok := unitWords[words[j]]; ok {
				return u
			}
		}
	}
	return ""
}

// answersUnit reports whether a sentence that gives numbers with units gives one in the unit the question
// counts in: "Chen Wei took 28 EUR in Germany" does not answer how many days.
func answersUnit(sentence, unit string) bool {
	if unit == "" {
		return true
	}
	words := strings.Fields(normSource(citeMarker.ReplaceAllString(sentence, " ")))
	given := false
	for i, w := range words {
		if !isNumber(w) {
			continue
		}
		switch u := unitAfter(words, i); u {
		case unit:
			return true
		case "":
		default:
			given = true
		}
	}
	return !given
}

// onTopic reports whether a sentence that names something stands on a source about what the question asks:
// one that holds one of the sentence's (or its facts') anchors and one of the question's topic words. A
// 1.5B model answered "How much can I receive if I am denied boarding ...?" with "a taxi fare of roughly 70
// to 90 EUR" from the travel tips, which say nothing of receiving, denial or boarding.
func onTopic(as, backing, topic []string, units []string) bool {
	if len(as) == 0 || len(topic) == 0 {
		return true
	}
	for _, u := range units {
		named := false
		for _, a := range slices.Concat(as, backing) {
			if holds(u, a) {
				named = true
				break
			}
		}
		if !named {
			continue
		}
		for _, stem := range topic {
			if strings.Contains(u, " "+stem) {
				return true
			}
		}
	}
	return false
}

// echoesQuestion reports a sentence that says back what the question asks ("Yes. The EU adopted a reform of
// EU261 that changes the delay thresholds.") where no source says it: every content word of the sentence is
// one of the question's, so the names in it, all of them the question's, prove nothing, and no source holds
// two thirds of its words.
func echoesQuestion(sentence, question string, units []string) bool {
	if question == "" {
		return false
	}
	asked := map[string]bool{"yes": true, "no": true}
	for _, w := range contentWords(question) {
		asked[w] = true
	}
	var ws []string
	for _, w := range contentWords(citeMarker.ReplaceAllString(sentence, " ")) {
		if !asked[w] {
			return false
		}
		if w != "yes" && w != "no" {
			ws = append(ws, w)
		}
	}
	if len(ws) < minShared {
		return false
	}
	for _, u := range units {
		held := 0
		for _, w := range ws {
			if holds(u, normAnchor(w)) {
				held++
			}
		}
		if 3*held >= 2*len(ws) {
			return false
		}
	}
	return true
}

// claimUnits are the texts anchors must share, normalised: a source, or, for a passage holding Markdown
// tables, its prose and each of its table rows apart, every row with the passage's origin and first line
// (its heading: "Distances from Munich to major cities") and its column headers. Every airline and every
// country of a registry table are in its passage, so "Austrian Airlines is licensed in Portugal" found
// both names in one source; only the row of TAP Air Portugal names Portugal.
func claimUnits(srcs []source) []string {
	var out []string
	for _, s := range srcs {
		origin := s.origin()
		if s.kind != KindChunk || !strings.Contains(s.text(), "|") {
			out = append(out, normSource(origin+"\n"+s.text()))
			continue
		}
		prose, rows := graphrag.TableRowTexts(s.text())
		out = append(out, normSource(origin+"\n"+prose))
		heading, _, _ := strings.Cut(strings.TrimLeft(s.text(), "\n"), "\n")
		for _, row := range rows {
			out = append(out, normSource(origin+"\n"+heading+"\n"+row))
		}
	}
	return out
}

// claimSupported applies the rule to one sentence's anchors as, with the question's anchors (subject) and
// the support's (backing) as further partners.
func claimSupported(as, subject, backing []string, norm []string) bool {
	in := make([][]bool, len(as)) // in[a][s]: anchor a appears in source s
	for a, anchor := range as {
		in[a] = make([]bool, len(norm))
		found := false
		for s, src := range norm {
			in[a][s] = holds(src, anchor)
			found = found || in[a][s]
		}
		if !found {
			return false
		}
	}
	if len(as) == 0 {
		return true
	}
	inSrc := func(anchor string, s int) bool { return holds(norm[s], anchor) }
	claim := slices.Concat(as, backing)
	if len(subject) > 0 && !reaches(subject, claim, norm, inSrc) {
		return false
	}
	partners := slices.Clone(claim)
	for _, q := range subject {
		if !slices.Contains(partners, q) {
			partners = append(partners, q)
		}
	}
	if len(partners) < 2 {
		return true
	}
	for a, anchor := range as {
		partnered := false
		for _, other := range partners {
			if other == anchor {
				continue
			}
			for s := range norm {
				if in[a][s] && inSrc(other, s) {
					partnered = true
					break
				}
			}
			if partnered {
				break
			}
		}
		if !partnered {
			return false
		}
	}
	return true
}

// reaches reports one anchor of subject and one of claim, not the same, in one source.
func reaches(subject, claim []string, norm []string, inSrc func(string, int) bool) bool {
	for _, q := range subject {
		for _, c := range claim {
			if q == c {
				return true // the answer names the question's subject itself; the partner rule judges it
			}
			for s := range norm {
				if inSrc(q, s) && inSrc(c, s) {
					return true
				}
			}
		}
	}
	return false
}

// internalLabel finds the start of the loop's own notes that a model copied into an answer ("... [1][2]
// Critique: The answer does not directly address the question"): what follows the label, to the end of
// its paragraph, is not for the reader.
var internalLabel = regexp.MustCompile(`(?i)(?:^|[\s(])(?:\*\*|__)?(?:critique|hypothesis|unsupported claims?|audit(?: findings)?|grounded|usefulness)(?:\*\*|__)?\s*:`)

// draftLabel finds labels a model puts before its answer ("Revised answer:"); the label goes, the answer
// stays.
var draftLabel = regexp.MustCompile(`(?im)^\s*(?:\*\*|__)?(?:revised|draft|final) answer(?:\*\*|__)?\s*:\s*(?:\*\*|__)?`)

// scrubInternal removes the loop's internal notes (critique, hypothesis, audit findings) from an answer.
func scrubInternal(text string) string {
	text = draftLabel.ReplaceAllString(text, "")
	for {
		loc := internalLabel.FindStringIndex(text)
		if loc == nil {
			return strings.TrimSpace(text)
		}
		end := len(text)
		if i := strings.Index(text[loc[1]:], "\n\n"); i >= 0 {
			end = loc[1] + i
		}
		text = strings.TrimRight(text[:loc[0]], " \t\n") + text[end:]
	}
}
