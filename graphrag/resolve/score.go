package resolve

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/hbollon/go-edlib"
)

// Score decides whether a and b are one thing. Hard evidence keeps them apart (other numbers, other kinds,
// a homonym whose passage's title qualifies it otherwise); the forms one name takes (the same key,
// spelling variants, an abbreviation, a short form) bring them together, as far as the documents they come
// from, their descriptions (cosine of the vectors) and the names found around them agree.
func Score(a, b Mention) Decision {
	ka, kb := key(a.Name), key(b.Name)
	if ka == "" || kb == "" {
		return decide(0, "no name")
	}
	if !numbersAgree(ka, kb) {
		return decide(0, "different numbers", fmt.Sprintf("%q and %q hold different numbers", a.Name, b.Name))
	}
	if typesConflict(a.Type, b.Type) {
		return decide(0, "different kinds", fmt.Sprintf("%q is a %s, %q a %s", a.Name, a.Type, b.Name, b.Type))
	}
	desc := descSimilarity(a, b)
	if ka == kb {
		return sameKey(a, b, ka, desc)
	}
	if strings.ReplaceAll(ka, " ", "") == strings.ReplaceAll(kb, " ", "") {
		return decide(0.95, "same letters", fmt.Sprintf("%q and %q differ only in spaces", a.Name, b.Name))
	}
	if sameWords(ka, kb) {
		ev := fmt.Sprintf("%q and %q hold the same words in another order", a.Name, b.Name)
		// two names turned round are often two people ("Liang Ji", a Han general, and "Ji Liang", a
		// philosopher, on the MuSiQue bench): alone in two documents they are only proposed
		if len(strings.Fields(ka)) == 2 && !sharesDoc(a, b) && desc < 0.5 && len(sharedContext(a, b, ka, kb)) == 0 {
			return decide(0.55, "names turned round", ev, "in two documents with nothing around them in common")
		}
		return decide(0.92, "same words", ev)
	}
	if isAcronym(a.Name, kb) {
		return abbreviation(a, b, kb, desc)
	}
	if isAcronym(b.Name, ka) {
		return abbreviation(b, a, ka, desc)
	}
	if shorter, longer, extra, tail, ok := containment(ka, kb); ok {
		return shortForm(a, b, shorter, longer, extra, tail, desc)
	}
	return spelling(a, b, ka, kb, desc)
}

// descSimilarity is the cosine of the mentions' vectors when both have a description, -1 otherwise (a
// name alone says nothing a vector could add: "Midway" is "Midway").
func descSimilarity(a, b Mention) float64 {
	if a.Description == "" || b.Description == "" || len(a.Vector) == 0 || len(a.Vector) != len(b.Vector) {
		return -1
	}
	var dot, na, nb float64
	for i := range a.Vector {
		dot += float64(a.Vector[i]) * float64(b.Vector[i])
		na += float64(a.Vector[i]) * float64(a.Vector[i])
		nb += float64(b.Vector[i]) * float64(b.Vector[i])
	}
	if na == 0 || nb == 0 {
		return -1
	}
	return dot / math.Sqrt(na*nb)
}

// sameKey is the verdict on one key found twice: one thing unless a passage's title qualifies the name
// otherwise (Midway, Floyd County, Iowa and Midway, Copiah County, Mississippi), or it is a common noun or
// a name many places share with nothing around it in common.
func sameKey(a, b Mention, k string, desc float64) Decision {
	qa, oka := titleQualifier(a.Title, k)
	qb, okb := titleQualifier(b.Title, k)
	switch {
	case oka && okb && qa != qb:
		return decide(0.05, "homonym", fmt.Sprintf("one passage is about %s, the other about %s", a.Title, b.Title))
	case oka && !okb && !names(b, qa) && !workNamesake(a.Title, b.Title, k):
		return decide(0.1, "homonym", fmt.Sprintf("one passage is about %s; nothing around the other says %s", a.Title, qa))
	case okb && !oka && !names(a, qb) && !workNamesake(b.Title, a.Title, k):
		return decide(0.1, "homonym", fmt.Sprintf("one passage is about %s; nothing around the other says %s", b.Title, qb))
	}
	if d, apart := Homonym(a, b); apart {
		return d
	}
	if sharesDoc(a, b) {
		return decide(1, "same key", "the same name in one document")
	}
	if commonNoun(a.Name) || commonNoun(b.Name) || kindWords[k] {
		return decide(0.6, "common noun", fmt.Sprintf("%q is a common word that may mean other things in other documents", a.Name))
	}
	shared := sharedContext(a, b, k)
	words := strings.Fields(k)
	if len(shared) < 2 && placeHeads[words[len(words)-1]] {
		return decide(0.6, "shared place name", fmt.Sprintf("many places are called %q and little around these two agrees", a.Name))
	}
	if desc >= 0 && desc < 0.3 {
		return decide(0.6, "same key, descriptions differ", fmt.Sprintf("descriptions alike at %.2f only", desc))
	}
	if len(shared) > 0 {
		return decide(1, "same key", fmt.Sprintf("the same name, found with %s in both", strings.Join(shared, ", ")))
	}
	return decide(0.95, "same key", "the same name")
}

// workNamesake reports whether the name of a passage titled by a qualifier ("Madonna (entertainer)") may be
// the namesake of the work another passage is about ("Madonna (book)", a biography of the singer): that
// passage writes the plain name for the work and for what it is named after alike, so nothing there saying
// "entertainer" is no sign of another thing. A place titled with its region ("Midway, Floyd County, Iowa")
// is one of many places of that name, not the one a work is likely named after: it stays apart. Kinds the
// extraction gives are compared before (a person and a book are two things).
func workNamesake(titled, work, k string) bool {
	return aboutWorkNamed(work, k) && !regionTitle(titled)
}

// Homonym decides whether two mentions of one name are two things though no passage's title says so:
// both described, of two known kinds (Score's kinds; a generic one such as "thing" or "concept" is no
// kind), found in no common document, their neighbourhoods disagreeing (each found with at least two other
// names, none of them in common) and their descriptions too (alike below 0.4). Each sign alone is too
// common for one thing seen twice: an extraction gives a city the kind "city" here and "location" there,
// describes Delhi by its distance in one document and by an office in another, and two documents about
// one thing need not name anything else in common; apart reports false unless all say two.
func Homonym(a, b Mention) (d Decision, apart bool) {
	if a.Description == "" || b.Description == "" || sharesDoc(a, b) || !kindsDiffer(a.Type, b.Type) {
		return Decision{}, false
	}
	k := key(a.Name)
	if len(others(a.Context, k)) < 2 || len(others(b.Context, k)) < 2 || len(sharedContext(a, b, k)) > 0 {
		return Decision{}, false
	}
	desc := descSimilarity(a, b)
	if desc < 0 || desc >= 0.4 {
		return Decision{}, false
	}
	return decide(0.1, "homonym: another kind", fmt.Sprintf("%q is a %s in one place and a %s in the other", a.Name, a.Type, b.Type),
		fmt.Sprintf("descriptions alike at %.2f only", desc),
		fmt.Sprintf("nothing around them in common (%s; %s)", strings.Join(others(a.Context, k)[:2], ", "),
			strings.Join(others(b.Context, k)[:2], ", "))), true
}

// genericKinds name no kind of thing: an extraction that does not know gives them.
var genericKinds = wordSet("thing concept entity other misc miscellaneous unknown item object term")

// kindsDiffer reports whether two types are both real kinds and conflict.
func kindsDiffer(a, b string) bool {
	la, lb := strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	return !genericKinds[la] && !genericKinds[lb] && typesKnownAlike(a, a) && typesKnownAlike(b, b) && typesConflict(a, b)
}

// others are the distinct keys of names other than k.
func others(names []string, k string) []string {
	var out []string
	for _, n := range names {
		if nk := key(n); nk != "" && nk != k && !slices.Contains(out, nk) {
			out = append(out, nk)
		}
	}
	return out
}

// abbreviation is the verdict on short, the initials of long's name (key lk): merged when the abbreviation
// is written out beside it (one document, or the long form among the short one's names), or when the
// descriptions agree.
func abbreviation(short, long Mention, lk string, desc float64) Decision {
	ev := fmt.Sprintf("%q abbreviates %q", short.Name, long.Name)
	switch {
	case sharesDoc(short, long):
		return decide(0.95, "abbreviation", ev, "both in one document")
	case contextNames(short, lk):
		return decide(0.95, "abbreviation", ev, "written out beside it")
	case desc >= 0.5:
		return decide(0.9, "abbreviation", ev, fmt.Sprintf("descriptions alike at %.2f", desc))
	}
	if len([]rune(strings.ReplaceAll(key(short.Name), " ", ""))) < 3 {
		return decide(0.3, "two letters", ev, "two letters abbreviate too many names")
	}
	return decide(0.55, "possible abbreviation", ev, "nothing around them confirms it")
}

// shortForm is the verdict on one name whose words are all in the other's: "Tarski" for Alfred Tarski,
// "Acme" for Acme Robotics, "Munich" for "Munich, Bavaria", but not "Boulder Dam" for the Boulder Dam
// Hotel, a thing named after it, nor the Amite River for the Petite Amite River.
func shortForm(a, b Mention, shorter, longer string, extra []string, tail bool, desc float64) Decision {
	if numeric(extra) {
		return decide(0.2, "one of it, numbered", fmt.Sprintf("%q is a date or a number of %q", longer, shorter))
	}
	if strings.ContainsFunc(shorter, unicode.IsDigit) {
		return decide(0.2, "a number", fmt.Sprintf("%q is a number or a date inside %q", shorter, longer))
	}
	if lw := strings.Fields(longer); tail && len(lw) > len(strings.Fields(shorter)) {
		// "Acquisition of Acme Robotics", "Bank of America", "City of London": a thing of the other, not it
		if before := lw[len(lw)-len(strings.Fields(shorter))-1]; ofWords[before] {
			return decide(0.2, "a thing of it", fmt.Sprintf("%q is %s %q, not %q itself", longer, strings.Join(lw[:len(lw)-len(strings.Fields(shorter))], " "), shorter, shorter))
		}
	}
	for _, w := range extra {
		if kindWords[w] && !tail {
			return decide(0.2, "named after it", fmt.Sprintf("%q is a %s named after %q", longer, w, shorter))
		}
		if prefixQualifiers[w] {
			return decide(0.2, "qualified otherwise", fmt.Sprintf("%q is %q qualified by %q", longer, shorter, w))
		}
	}
	long, short := a, b
	if key(a.Name) == shorter {
		long, short = b, a
	}
	ev := fmt.Sprintf("%q is a short form of %q", shorter, longer)
	if q, ok := titleQualifier(long.Name, shorter); ok && names(short, q) {
		return decide(0.9, "qualified name", fmt.Sprintf("%q is %q in %s, as the other says", long.Name, short.Name, q))
	}
	// a short form at the end is a family name ("Tarski" of Alfred Tarski), or a name without its
	// first words ("Department of Transportation"); "Gatwick" is not City Place Gatwick
	// ("Manitoba" is not "Winnipeg, Manitoba", "President" not "Vice President", "Germanic" not "Proto-Germanic");
	// a name in capitals is an abbreviation, not a family name: "American MTV" is MTV's channel of one
	// country, which a passage may name beside the network itself
	surname := tail && len(strings.Fields(shorter)) == 1 && len(strings.Fields(long.Name)) == 2 && capitalised(long.Name) &&
		capitalised(short.Name) && !inCapitals(short.Name) && !strings.ContainsAny(long.Name, ",(") && !kindWords[shorter] &&
		!prefixQualifiers[extra[0]]
	agree := typesKnownAlike(a.Type, b.Type) && desc >= 0.7 // "Lufthansa" and "Deutsche Lufthansa AG", both airlines
	if tail && !surname && len(strings.Fields(shorter)) < 2 && !agree {
		return decide(0.3, "one name inside the other", ev)
	}
	switch {
	// in one passage only a family name: a passage names "Delhi" beside the "Delhi Sultanate", the
	// "United States" beside "former vice president of the United States"
	case sharesDoc(a, b) && surname && (desc < 0 || desc >= 0.5):
		return decide(0.92, "family name", ev, "both in one document")
	case agree:
		return decide(0.9, "short form", ev, fmt.Sprintf("descriptions alike at %.2f", desc))
	case typesKnownAlike(a.Type, b.Type) || len(strings.Fields(shorter)) > 1:
		// worth a person's look; one bare word inside a longer name ("Smith", "Republic") is not
		return decide(0.55, "possible short form", ev)
	}
	return decide(0.3, "one name inside the other", ev)
}

// spelling is the verdict on two keys that differ in a few letters: "Bharatiya Janta Party" for the
// Bharatiya Janata Party, but not Austria for Australia.
func spelling(a, b Mention, ka, kb string, desc float64) Decision {
	jw := float64(edlib.JaroWinklerSimilarity(ka, kb))
	edits := edlib.LevenshteinDistance(ka, kb)
	ev := fmt.Sprintf("%q and %q are %d letters apart (Jaro-Winkler %.2f)", a.Name, b.Name, edits, jw)
	derived := strings.HasPrefix(ka, kb) || strings.HasPrefix(kb, ka) // "azerbaijani" of "azerbaijan"
	if opposite(ka, kb) {
		return decide(0.1, "qualified otherwise", fmt.Sprintf("%q and %q differ in a qualifier", a.Name, b.Name))
	}
	switch {
	case jw >= 0.93 && edits <= 2 && min(len(ka), len(kb)) >= 10 && !derived && desc >= 0.5:
		return decide(0.9, "spelling variant", ev, fmt.Sprintf("descriptions alike at %.2f", desc))
	case jw >= 0.93 && edits <= 2 && min(len(ka), len(kb)) >= 10 && !derived:
		// names alone this close are as often two things (British Rail, British Raj; South America, South Africa)
		return decide(0.6, "possible spelling variant", ev)
	case jw >= 0.85 && edits <= 3 && desc >= 0.6 && typesKnownAlike(a.Type, b.Type):
		return decide(0.9, "similar spelling", ev, fmt.Sprintf("kinds agree, descriptions alike at %.2f", desc))
	case jw >= 0.85 && desc >= 0.6:
		return decide(0.6, "similar spelling", ev, fmt.Sprintf("descriptions alike at %.2f", desc))
	case typesKnownAlike(a.Type, b.Type) && desc >= 0.8:
		return decide(0.55, "similar descriptions", fmt.Sprintf("descriptions of %q and %q alike at %.2f", a.Name, b.Name, desc))
	}
	return decide(0.1, "different names", ev)
}
