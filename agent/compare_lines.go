package agent

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Comparisons: a rule gives thresholds ("flights over 3,500 km: 600 EUR", "business class when the distance
// exceeds 5,000 km") and a table or a graph fact gives the value of the question's case (Delhi, 5,921 km;
// Dubai, 4,569 km). The local 1.5B model reads both and still picks the wrong tier, or answers "if the
// distance exceeds 5,000 km" instead of no. Hopwise does the arithmetic itself: the answer call of the
// local profile gets one line per value of the key lines, saying which of the rules' thresholds of the same
// unit it is above and below. It adds no fact: each number is in a source, with that source's number.

// quantity finds a number with its unit: "5,921 km", "600 EUR", "30 days".
var quantity = regexp.MustCompile(`(?i)\b(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?(km|kilometres|kilometers|miles|eur|euros?|usd|dollars|days|hours|minutes|kg|%)\b`)

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

// amounts returns the quantities of a text found in source n.
func amounts(text string, n int) []amount {
	var out []amount
	for _, m := range quantity.FindAllStringSubmatch(text, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			continue
		}
		out = append(out, amount{value: v, text: m[0], unit: unitOf(m[2]), n: n})
	}
	return out
}

// comparisonLines returns, for at most two quantities of the key lines that come from a table row or a graph
// fact and hold most of the question's terms (the question's case), a line naming the thresholds of the same unit that the sources' prose states
// (the rules) and whether the value is above or below each. None when the prose states no such threshold.
func comparisonLines(keys []keyLine, srcs []source) []string {
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
	for i, s := range srcs {
		if s.kind != KindChunk {
			continue
		}
		_, sents, _ := passageParts(s)
		rules = append(rules, amounts(strings.Join(sents, "\n"), i+1)...)
	}
	var out []string
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
		out = append(out, line+".")
	}
	return out
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
