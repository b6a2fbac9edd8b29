package agent

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Comparisons: a rule gives thresholds ("flights over 3,500 km: 600 EUR", "business class when the distance
// exceeds 5,000 km") and a table or a graph fact gives the value of the question's case (Delhi, 5,921 km;
// Dubai, 4,569 km). The local 1.5B model reads both and still picks the wrong tier, or answers "if the
// distance exceeds 5,000 km" instead of no. Hopwise does the arithmetic itself: the answer call of the
// local profile gets one line per value of the key lines, saying which of the rules' thresholds of the same
// unit it is above and below. It adds no fact: each number is in a source, with that source's number.

// qty is a number and its unit, as two groups: "5,921 km", "600 EUR", "30 days".
const qty = `(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(km|kilometres|kilometers|miles|eur|euros?|usd|dollars|days|hours|minutes|kg|%)\b`

// quantity finds a number with its unit.
var quantity = regexp.MustCompile(`(?i)\b` + qty)

// number reads a number as qty matches it ("5,921").
func number(s string) (float64, error) { return strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64) }

// amount is one quantity found in a source.
type amount struct {
	value float64
	text  string // as written: "5,921 km"
	unit  string // normalised: "km"
	n     int    // the source's number
}

// unitOf normalises a unit as the claim check does (unitWords), so that "euros" and "EUR" compare.
func unitOf(u string) string {
	u = strings.ToLower(u)
	if n, ok := unitWords[u]; ok {
		return n
	}
	return u
}

// propertyQuantity is a graph fact's property whose name ends in its unit: "distance_km: 5921" (the unit
// group, then the number).
var propertyQuantity = regexp.MustCompile(`(?i)\b[a-z]+_(km|kilometres|kilometers|miles|eur|euros?|usd|dollars|days|hours|minutes|kg)\s*[:=]\s*(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\b`)

// amounts returns the quantities of a text found in source n, those of fact properties written as
// number and unit ("5921 km").
func amounts(text string, n int) []amount {
	var out []amount
	for _, m := range quantity.FindAllStringSubmatch(text, -1) {
		v, err := number(m[1])
		if err != nil {
			continue
		}
		out = append(out, amount{value: v, text: m[0], unit: unitOf(m[2]), n: n})
	}
	for _, m := range propertyQuantity.FindAllStringSubmatch(text, -1) {
		v, err := number(m[2])
		if err != nil {
			continue
		}
		out = append(out, amount{value: v, text: m[2] + " " + strings.ToLower(m[1]), unit: unitOf(m[1]), n: n})
	}
	return out
}

// comparison is one value of the question's case set against the rules' thresholds: the line the answer
// call reads, and the rule lines whose conditions the value meets.
type comparison struct {
	value amount
	line  string
	met   []ruleLine
	// asked are the lines the value does not meet that hold a word of the question the met lines lack
	// (business class, for Dubai's 4,569 km).
	asked []ruleLine
}

// comparisonLines returns the lines of comparisons, which the answer call reads.
func comparisonLines(question string, keys []keyLine, srcs []source) []string {
	return lineTexts(comparisons(question, keys, srcs))
}

// lineTexts are the comparisons' lines.
func lineTexts(cs []comparison) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.line)
	}
	return out
}

// comparisons returns, for at most two quantities of the key lines that come from a table row or a graph
// fact and hold most of the question's terms (the question's case), a line naming the thresholds of the same unit that the sources' prose states
// (the rules) and whether the value is above or below each. None when the prose states no such threshold.
func comparisons(question string, keys []keyLine, srcs []source) []comparison {
	var values []amount
	best := 0 // the rows and facts that hold most of the question: Delhi's row, not every row of the table
	for _, k := range keys {
		if k.n < 1 || k.n > len(srcs) || !isRowOrFact(k.text, srcs[k.n-1]) || k.score < best {
			continue
		}
		if k.score > best {
			best, values = k.score, nil
		}
		values = append(values, amounts(k.text, k.n)...)
	}
	var rules []amount
	var conds []ruleLine
	for i, s := range srcs {
		if s.kind != KindChunk {
			continue
		}
		_, sents, _ := passageParts(s)
		rules = append(rules, amounts(strings.Join(sents, "\n"), i+1)...)
		conds = append(conds, ruleLines(s, i+1)...)
	}
	var out []comparison
	seen := map[string]bool{}
	for _, v := range values {
		if len(out) == 2 || seen[v.text] {
			continue
		}
		seen[v.text] = true
		var above, below []string
		done := map[float64]bool{}
		for _, r := range rules {
			if r.unit != v.unit || r.value == v.value || done[r.value] {
				continue
			}
			done[r.value] = true
			ref := r.text + " [" + strconv.Itoa(r.n) + "]"
			if v.value > r.value {
				above = append(above, ref)
			} else {
				below = append(below, ref)
			}
		}
		if len(above)+len(below) == 0 {
			continue
		}
		line := v.text + " [" + strconv.Itoa(v.n) + "] is"
		if len(above) > 0 {
			line += " more than " + strings.Join(above, ", ")
		}
		if len(below) > 0 {
			if len(above) > 0 {
				line += ";"
			}
			line += " less than " + strings.Join(below, ", ")
		}
		met, asked, text := fitting(v, conds, question)
		out = append(out, comparison{value: v, line: line + "." + text, met: met, asked: asked})
	}
	return out
}

// ruleLine is a sentence or list item of a source's prose that states a condition on a quantity
// ("all other flights over 3,500 km: 600 EUR", "between 3,000 km and 5,000 km").
type ruleLine struct {
	text  string
	n     int
	conds []condition
}

// condition is one threshold of a rule line: the value is above lo (over, more than, exceeds), at most hi
// (up to, under, less than), or between the two.
type condition struct {
	unit   string
	lo, hi float64 // lo < value <= hi; -1 for no bound
}

var (
	betweenCond = regexp.MustCompile(`(?i)\bbetween\s+` + qty + `\s+and\s+` + qty)
	overCond    = regexp.MustCompile(`(?i)\b(?:over|more than|exceeds?|exceeding|above|longer than|greater than|beyond)\s+(?:the\s+)?` + qty)
	underCond   = regexp.MustCompile(`(?i)\b(?:up to|under|less than|below|at most|shorter than|within)\s+(?:the\s+)?` + qty)
	orCond      = regexp.MustCompile(`(?i)\b` + qty + `\s+or\s+(less|fewer|more)\b`) // "1,500 km or less"
)

// ruleLines returns the prose lines of source n that state a condition on a quantity, one per sentence
// or list item (passageParts joins a list to the sentence that introduces it; the tiers are its items).
func ruleLines(s source, n int) []ruleLine {
	prose, _ := graphrag.TableRowTexts(s.text())
	var out []ruleLine
	for _, raw := range sentences(prose) {
		line := oneLine(strings.TrimLeft(listItem.ReplaceAllString(strings.TrimSpace(raw), ""), "#> "))
		var cs []condition
		num := func(m string) float64 { v, _ := number(m); return v } // qty matched it: always a number
		rest := line
		for _, m := range betweenCond.FindAllStringSubmatch(rest, -1) {
			if unitOf(m[2]) == unitOf(m[4]) {
				cs = append(cs, condition{unit: unitOf(m[2]), lo: num(m[1]), hi: num(m[3])})
			}
		}
		rest = betweenCond.ReplaceAllString(rest, " ")
		for _, m := range overCond.FindAllStringSubmatch(rest, -1) {
			cs = append(cs, condition{unit: unitOf(m[2]), lo: num(m[1]), hi: -1})
		}
		for _, m := range underCond.FindAllStringSubmatch(rest, -1) {
			cs = append(cs, condition{unit: unitOf(m[2]), lo: -1, hi: num(m[1])})
		}
		for _, m := range orCond.FindAllStringSubmatch(rest, -1) {
			if v := num(m[1]); strings.EqualFold(m[3], "more") {
				cs = append(cs, condition{unit: unitOf(m[2]), lo: v - 1e-9, hi: -1}) // "X or more": X itself meets it
			} else {
				cs = append(cs, condition{unit: unitOf(m[2]), lo: -1, hi: v})
			}
		}
		if len(cs) > 0 {
			out = append(out, ruleLine{text: line, n: n, conds: cs})
		}
	}
	return out
}

// meets reports whether value v satisfies every condition of the line in v's unit, and whether the line
// has any.
func (l ruleLine) meets(v amount) (fits, applies bool) {
	fits = true
	for _, c := range l.conds {
		if c.unit != v.unit {
			continue
		}
		applies = true
		if c.lo >= 0 && v.value <= c.lo || c.hi >= 0 && v.value > c.hi {
			fits = false
		}
	}
	return fits && applies, applies
}

// fitting names the rule lines whose conditions the case's value meets ("all other flights over 3,500 km:
// 600 EUR" for 5,921 km), and those it does not meet that hold a word of the question the met ones lack
// (business class, "exceeds 5,000 km", for Dubai's 4,569 km, where the line met is premium economy's): the
// small model picked the wrong tier from the thresholds alone. Two of each at most; "" when no line has a
// condition in the value's unit. It also returns the lines met and the unmet lines it names.
func fitting(v amount, lines []ruleLine, question string) (met, asked []ruleLine, text string) {
	var unmet []ruleLine
	for _, l := range lines {
		switch fits, applies := l.meets(v); {
		case fits:
			met = append(met, l)
		case applies:
			unmet = append(unmet, l)
		}
	}
	quote := func(ls []ruleLine) string {
		var q []string
		for _, l := range ls[:min(len(ls), 2)] {
			q = append(q, "“"+clip(l.text, 160)+"” ["+strconv.Itoa(l.n)+"]")
		}
		return strings.Join(q, ", ")
	}
	metWords := map[string]bool{}
	for _, l := range met {
		for _, w := range contentWords(l.text) {
			metWords[w] = true
		}
	}
	for _, l := range unmet {
		words := contentWords(l.text)
		if slices.ContainsFunc(contentWords(question), func(w string) bool { return !metWords[w] && !isNumber(w) && slices.Contains(words, w) }) {
			asked = append(asked, l)
		}
	}
	var out string
	if len(met) > 0 {
		out += " It meets the condition of " + quote(met) + "."
	}
	if len(asked) > 0 {
		out += " It does not meet that of " + quote(asked) + "."
	}
	return met, asked, out
}

// yesNoQuestion matches a question asked to be answered yes or no ("May an employee book business class
// ...?", "Can I ...?", "Is ...?").
var yesNoQuestion = regexp.MustCompile(`(?i)^\s*(?:may|can|could|is|are|does|do|should|will|am)\b`)

// yesAnswer matches an answer that begins with yes.
var yesAnswer = regexp.MustCompile(`(?i)^\W*yes\b`)

// contradictedYes is why a yes to a yes-or-no question goes against a comparison: the case's value does
// not meet the condition of the rule line that holds what the question asks about ("4,569 km does not
// meet the condition of “Business class is permitted when ... exceeds 5,000 km”"); "" when no comparison
// says so. The 1.5B model answered "Yes, ... business class ... because the distance is more than
// 3,000 km" with that comparison in its prompt (M03).
func contradictedYes(question, answer string, cs []comparison) string {
	if !yesNoQuestion.MatchString(question) || !yesAnswer.MatchString(answer) {
		return ""
	}
	for _, c := range cs {
		if len(c.asked) > 0 {
			l := c.asked[0]
			return c.value.text + " [" + strconv.Itoa(c.value.n) + "] does not meet the condition of “" + clip(l.text, 160) +
				"” [" + strconv.Itoa(l.n) + "]"
		}
	}
	return ""
}

// decidingLine is the step an answer rests on when it gives what a met rule line gives: "5,921 km [3]
// meets the condition of “all other flights over 3,500 km: 600 EUR” [2]." for an answer of 600 EUR. The
// 1.5B model answered the reference question with the amount and the distance but left out the threshold
// that decides between the tiers, so a reader could not check it (docs/benchmarks.md, session 7); Hopwise
// computed that step itself (comparisons) and lists it with the answer. "" when the answer gives no
// amount of a met line's other than the value's own unit, or it or the facts listed with it already state
// that line's threshold.
func decidingLine(answer, listed string, cs []comparison) string {
	given := amounts(answer, 0)
	for _, c := range cs {
		for _, l := range c.met {
			if !givesOutcome(given, l, c.value.unit) || statesThreshold(answer+"\n"+listed, l, c.value.unit) {
				continue
			}
			return c.value.text + " [" + strconv.Itoa(c.value.n) + "] meets the condition of “" + clip(l.text, 160) +
				"” [" + strconv.Itoa(l.n) + "]."
		}
	}
	return ""
}

// givesOutcome reports whether one of the answer's amounts is one the rule line gives in another unit
// than its condition's (600 EUR of "over 3,500 km: 600 EUR").
func givesOutcome(given []amount, l ruleLine, condUnit string) bool {
	for _, o := range amounts(l.text, l.n) {
		if o.unit == condUnit {
			continue
		}
		if slices.ContainsFunc(given, func(a amount) bool { return a.unit == o.unit && a.value == o.value }) {
			return true
		}
	}
	return false
}

// statesThreshold reports whether the answer names every threshold of the line's conditions in the unit.
func statesThreshold(answer string, l ruleLine, unit string) bool {
	var bounds []float64
	for _, c := range l.conds {
		if c.unit == unit {
			bounds = append(bounds, c.lo, c.hi)
		}
	}
	stated := amounts(answer, 0)
	for _, b := range bounds {
		if b >= 0 && !slices.ContainsFunc(stated, func(a amount) bool { return a.unit == unit && math.Abs(a.value-b) < 1e-6 }) {
			return false
		}
	}
	return len(bounds) > 0
}

// isRowOrFact reports whether a key line is a graph fact or one of its passage's table rows.
func isRowOrFact(line string, s source) bool {
	if s.kind != KindChunk {
		return true
	}
	_, _, rows := passageParts(s)
	return slices.Contains(rows, line)
}

// writeComparisons writes the comparison lines after the key lines, nothing when there are none.
func writeComparisons(b *strings.Builder, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nComparisons (computed from the sources):\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
}
