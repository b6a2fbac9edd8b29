package resolve

import (
	"slices"
	"strings"
	"unicode"

	"github.com/hbollon/go-edlib"
)

// kindWords are the head nouns that make a name another thing than the name it extends: "Boulder Dam
// Hotel" is not Boulder Dam, "Lufthansa Group" not Lufthansa, "Cojedes River" not the state of Cojedes.
var kindWords = wordSet(`hotel inn cup trophy award awards prize medal river creek lake bay sea island islands
	mountain mountains range valley dam bridge tower building hall house palace castle museum library gallery
	church cathedral school college university institute academy hospital station airport port stadium arena
	park street avenue avenues road route highway county township district province region courthouse team club
	league party army navy corps group bus express railway war revolution battle treaty act festival hymn song
	album film series season show championship games olympics governor president council committee ministry
	department agency society foundation centre center peninsula`)

// workWords qualify a title that is about a work named like something else ("Iron Maiden (album)",
// "The Good, the Bad and the Ugly (theme)"): the passage may still use the plain name for that other thing.
var workWords = wordSet(`album song single film movie theme soundtrack band novel book play musical series season
	episode game tv`)

// placeHeads end names that many places share ("Essex County", "South Shore", "North Branch"): the same name
// in two documents is one place only when something around them agrees.
var placeHeads = wordSet(`county township shore branch street avenue road route district parish borough ward
	valley creek plains springs falls hills heights grove ridge village junction crossing mills`)

// prefixQualifiers before a name make another thing of it: West Flanders, East Germany, New Berlin, the
// Petite Amite River, Rio Cojedes (the river, not the state).
// ofWords end the words before a name that make a longer name a thing of it ("Acquisition of Acme Robotics").
var ofWords = wordSet(`of for by from de du des der von`)

var prefixQualifiers = wordSet(`north south east west northern southern eastern western northeastern northwestern
	southeastern southwestern central upper lower inner outer downtown uptown new old little great big greater petite
	rio lago lake mount monte fort port saint st san santa`)

// kindGroups are entity types that may name one thing: an extraction calls Lufthansa an airline in one
// passage and an organization in the next.
var kindGroups = [][]string{
	{"organization", "organisation", "company", "airline", "corporation", "business", "org", "institution",
		"agency", "university", "employer", "carrier", "investor", "fund", "party", "government agency"},
	{"city", "town", "village", "location", "place", "country", "state", "region", "gpe", "area", "capital",
		"geo", "province", "nation", "territory", "municipality", "district"},
	{"person", "people", "human", "individual"},
	{"regulation", "law", "rule", "policy", "legislation", "act"},
}

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(s) {
		out[w] = true
	}
	return out
}

// typesConflict reports whether two types say two different kinds of thing; an empty type agrees with any.
func typesConflict(a, b string) bool {
	a, b = strings.ToLower(strings.TrimSpace(a)), strings.ToLower(strings.TrimSpace(b))
	if a == "" || b == "" || a == b {
		return false
	}
	for _, g := range kindGroups {
		if slices.Contains(g, a) && slices.Contains(g, b) {
			return false
		}
	}
	return true
}

// typesKnownAlike reports whether both types are given and agree.
func typesKnownAlike(a, b string) bool {
	return strings.TrimSpace(a) != "" && strings.TrimSpace(b) != "" && !typesConflict(a, b)
}

// numbersAgree reports whether the numbers of one key are those of the other or a part of them at its
// start or end: "Regulation 261/2004" and "EU261" may agree, "April 13, 1913" and "April 16, 1977" or
// "Illinois Route 1" and "Illinois Route 10" do not.
func numbersAgree(ka, kb string) bool {
	da, db := strings.Fields(digitRuns(ka)), strings.Fields(digitRuns(kb))
	if len(da) > len(db) {
		da, db = db, da
	}
	return slices.Equal(da, db[:len(da)]) || slices.Equal(da, db[len(db)-len(da):])
}

// digitRuns are the numbers a key holds, in order: "illinois route 1" has [1], "april 13 1913" [13 1913].
func digitRuns(k string) string {
	var b strings.Builder
	prev := false
	for _, r := range k {
		d := unicode.IsDigit(r)
		if d {
			b.WriteRune(r)
		} else if prev {
			b.WriteByte(' ')
		}
		prev = d
	}
	return strings.TrimSpace(b.String())
}

// stopWords are left out of initials: "Bank of England" is BE, "National Register of Historic Places" NRHP.
var stopWords = wordSet("of the and for in on at to de la le du des der van von y")

// isAcronym reports whether short is the initials of long's words, with or without its small words:
// "BJP" of "Bharatiya Janata Party", "U.K." of "United Kingdom". short must be written in capitals.
func isAcronym(shortName, longKey string) bool {
	letters := strings.ReplaceAll(key(shortName), " ", "")
	if len([]rune(letters)) < 2 || strings.Count(shortName, " ") > 0 || !hasUpper(shortName) {
		return false
	}
	words := strings.Fields(longKey)
	if len(words) < 2 || slices.Contains(words, letters) { // "U.S." is not expanded by "US state"
		return false
	}
	if initialsMatch(words, letters) {
		return true
	}
	// "DOT" of "US Department of Transportation": the country before the name is not abbreviated, when it
	// is a short one (US, UK, EU) and a name follows it, not "contiguous" or "policy of" before "United
	// States", which "U.S." does not abbreviate
	return len(words) > 2 && len([]rune(words[0])) <= 3 && !stopWords[words[1]] && initialsMatch(words[1:], letters)
}

// initialsMatch reports whether letters are the first letters of words, with or without the small ones.
func initialsMatch(words []string, letters string) bool {
	var all, content strings.Builder
	for _, w := range words {
		r := []rune(w)[0]
		all.WriteRune(r)
		if !stopWords[w] {
			content.WriteRune(r)
		}
	}
	return letters == all.String() || letters == content.String()
}

func hasUpper(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsUpper(r) {
			n++
		}
	}
	return n >= 2
}

// inCapitals reports whether a name is written in capitals, two or more of them and no small letter: "MTV",
// "NASA", "U.K.".
func inCapitals(name string) bool {
	return hasUpper(name) && !strings.ContainsFunc(name, unicode.IsLower)
}

// containment: when every word of one key is in the other, shorter and longer are the keys and extra the
// words only the longer has; ok is false otherwise (or when the keys have the same words). tail reports
// whether the shorter key ends the longer one after the extra words ("tarski" in "alfred tarski").
func containment(ka, kb string) (shorter, longer string, extra []string, tail, ok bool) {
	wa, wb := strings.Fields(ka), strings.Fields(kb)
	if len(wa) > len(wb) {
		ka, kb, wa, wb = kb, ka, wb, wa
	}
	if len(wa) == len(wb) {
		return "", "", nil, false, false
	}
	for _, w := range wa {
		if !slices.Contains(wb, w) {
			return "", "", nil, false, false
		}
	}
	for _, w := range wb {
		if !slices.Contains(wa, w) {
			extra = append(extra, w)
		}
	}
	return ka, kb, extra, strings.HasSuffix(kb, " "+ka), true
}

// opposite reports whether two keys differ in a qualifier word: the Red River of the North and of the
// South, the East and the West Coast.
func opposite(ka, kb string) bool {
	wa, wb := strings.Fields(ka), strings.Fields(kb)
	for _, w := range wa {
		if prefixQualifiers[w] && !slices.Contains(wb, w) {
			return true
		}
	}
	for _, w := range wb {
		if prefixQualifiers[w] && !slices.Contains(wa, w) {
			return true
		}
	}
	return false
}

// capitalised reports whether every word of a name starts with a capital letter ("Alfred Tarski", not
// "former vice president").
func capitalised(name string) bool {
	for _, w := range strings.Fields(name) {
		if r := []rune(w)[0]; !unicode.IsUpper(r) {
			return false
		}
	}
	return name != ""
}

// numeric reports whether every word is a number ("2004", "3"): what a date adds to its month.
func numeric(words []string) bool {
	for _, w := range words {
		if !strings.ContainsFunc(w, unicode.IsDigit) {
			return false
		}
	}
	return len(words) > 0
}

// sameWords reports whether two keys hold the same words in another order ("chen wei", "wei chen").
func sameWords(ka, kb string) bool {
	wa, wb := strings.Fields(ka), strings.Fields(kb)
	slices.Sort(wa)
	slices.Sort(wb)
	return len(wa) > 1 && slices.Equal(wa, wb)
}

// titleQualifier is the qualifier of a title written "NAME, QUALIFIER" or "NAME (QUALIFIER)" whose NAME is
// the key k: "Midway, Floyd County, Iowa" qualifies "midway" by "floyd county iowa". A qualifier that
// names a kind of work ("album") is not one: such a passage may use the plain name for the other thing.
func titleQualifier(title, k string) (string, bool) {
	q, ok := titleParts(title, k)
	if !ok || namesWork(q) {
		return "", false
	}
	return q, true
}

// titleParts is the key of the qualifier of a title written "NAME, QUALIFIER" or "NAME (QUALIFIER)" whose
// NAME is the key k, work or not. A title whose key is k qualifies nothing: "Tesla, Inc." is Tesla's name
// with its legal form, which the key leaves out.
func titleParts(title, k string) (string, bool) {
	i := strings.IndexAny(title, ",(")
	if i <= 0 || key(title[:i]) != k || key(title) == k {
		return "", false
	}
	q := key(title[i+1:])
	return q, q != ""
}

// namesWork reports whether a qualifier's key holds a word of workWords.
func namesWork(q string) bool {
	return slices.ContainsFunc(strings.Fields(q), func(w string) bool { return workWords[w] })
}

// aboutWorkNamed reports whether a title is that of a work called k: "Madonna (book)", "Iron Maiden
// (album)". A work is named after something (a biography after its subject, a self-titled album after the
// band that made it), and its passage writes the plain name for the work and for its namesake alike.
func aboutWorkNamed(title, k string) bool {
	q, ok := titleParts(title, k)
	return ok && namesWork(q)
}

// regionTitle reports whether a title qualifies its name by a region after a comma, as a place's title does
// ("Midway, Floyd County, Iowa", "Central High School (Louisville, Kentucky)"): one of the many places of
// that name, not the one a work named so is likely named after.
func regionTitle(title string) bool { return strings.Contains(title, ",") }

// names reports whether q's words stand together in the key of m's title, description or one of its
// context names.
func names(m Mention, q string) bool {
	q = " " + q + " "
	for _, s := range append([]string{m.Title, m.Description}, m.Context...) {
		if strings.Contains(" "+key(s)+" ", q) {
			return true
		}
	}
	return false
}

// contextNames reports whether a name of m's context is the key k, or spelled one or two letters apart
// ("National Register of Historic Places" beside "... of Historical Places").
func contextNames(m Mention, k string) bool {
	for _, c := range m.Context {
		if ck := key(c); ck == k || (len(k) >= 10 && edlib.LevenshteinDistance(ck, k) <= 2) {
			return true
		}
	}
	return false
}

// sharedContext are the names both mentions are found with, other than their own and numbers.
func sharedContext(a, b Mention, own ...string) []string {
	seen := map[string]bool{}
	for _, c := range a.Context {
		seen[key(c)] = true
	}
	var out []string
	for _, c := range b.Context {
		k := key(c)
		// numbers and dates are no sign of one place: two passages say "at the 2010 census"
		if seen[k] && k != "" && !slices.Contains(own, k) && !strings.ContainsFunc(k, unicode.IsDigit) {
			out = append(out, c)
			seen[k] = false
		}
	}
	return out
}

// sharesDoc reports whether the mentions were found in a common document.
func sharesDoc(a, b Mention) bool {
	for _, d := range a.Docs {
		if d != "" && slices.Contains(b.Docs, d) {
			return true
		}
	}
	return false
}

// commonNoun reports whether a name is one lower-case word ("journal", "seventh"): an extraction makes
// entities of such words, which mean different things in different passages.
func commonNoun(name string) bool {
	name = strings.TrimSpace(name)
	return name != "" && !strings.ContainsAny(name, " -") && strings.ToLower(name) == name && !strings.ContainsFunc(name, unicode.IsDigit)
}
