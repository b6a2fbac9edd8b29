package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// The value of the question's case (a table row, a graph fact) set against the thresholds a rule states:
// Hopwise, not the model, says 5,921 km is more than 3,500 km.
func TestComparisonLinesSetAValueAgainstTheRulesThresholds(t *testing.T) {
	rule := euRule()
	table := distances("t", "| Delhi | 5,921 km |\n| Dubai | 4,569 km |\n")
	policy := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "p", DocName: "handbook.md", Text: "TRV-117 Class of travel\n\n" +
		"Business class is permitted when the great-circle distance exceeds 5,000 km. Premium economy may be booked for flights " +
		"between 3,000 km and 5,000 km."}}
	fact := source{kind: KindFact, fact: graphrag.Fact{ID: "f", Sentence: "Dubai DISTANCE_FROM_MUNICH 4,569 km"}}

	srcs := []source{rule, table}
	q := "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"
	got := comparisonLines(q, keyLines(q, srcs, 4), srcs)
	want := []string{"5,921 km [2] is more than 1,500 km [1], 3,500 km [1]. It meets the condition of “all other flights over 3,500 km: 600 EUR” [1]."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comparisons = %q, want %q", got, want)
	}

	srcs = []source{policy, fact}
	got = comparisonLines("May an employee book business class from Munich to Dubai?", keyLines("May an employee book business class from Munich to Dubai?", srcs, 24), srcs)
	want = []string{"4,569 km [2] is more than 3,000 km [1]; less than 5,000 km [1]. It meets the condition of “Premium economy may be booked for flights between 3,000 km and 5,000 km.” [1]. " +
		"It does not meet that of “Business class is permitted when the great-circle distance exceeds 5,000 km.” [1]."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comparisons = %q, want %q", got, want)
	}

	// "1,500 km or less" is a condition as "up to 1,500 km" is: 684 km meets the first tier only.
	short := distances("t2", "| Paris | 684 km |\n")
	srcs = []source{rule, short}
	q = "How much can I receive if I am denied boarding on a flight from Paris to Munich?"
	got = comparisonLines(q, keyLines(q, srcs, 4), srcs)
	want = []string{"684 km [2] is less than 1,500 km [1], 3,500 km [1]. It meets the condition of “flights of 1,500 km or less: 250 EUR” [1]."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comparisons = %q, want %q", got, want)
	}

	// A value without a threshold of its unit in any rule, or a rule's own numbers, compare with nothing.
	srcs = []source{table}
	if got := comparisonLines("How far is Delhi from Munich?", keyLines("How far is Delhi from Munich?", srcs, 4), srcs); len(got) != 0 {
		t.Errorf("comparisons without a rule = %q, want none", got)
	}
	var b strings.Builder
	writeComparisons(&b, []string{"5,921 km [2] is more than 3,500 km [1]."})
	if !strings.Contains(b.String(), "Comparisons (computed from the sources):\n- 5,921 km [2] is more than 3,500 km [1].") {
		t.Errorf("written comparisons = %q", b.String())
	}
}

// The step an answer rests on: listed when the answer gives what a met rule line gives and does not
// state its threshold; not for another tier's amount, nor when no amount is given.
func TestDecidingLine(t *testing.T) {
	srcs := []source{euRule(), distances("t", "| Delhi | 5,921 km |\n| Paris | 684 km |\n")}
	q := "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"
	cs := comparisons(q, keyLines(q, srcs, 4), srcs)
	for _, tc := range []struct{ answer, listed, want string }{
		{"You can receive 600 EUR [1].", "", "5,921 km [2] meets the condition of “all other flights over 3,500 km: 600 EUR” [1]."},
		{"600 euros.", "Delhi is 5,921 km from Munich [2]", "5,921 km [2] meets the condition of “all other flights over 3,500 km: 600 EUR” [1]."},
		{"You can receive 600 EUR.", "5,921 km is more than 3,500 km [1]", ""},
		{"You can receive 400 EUR [1].", "", ""},
		{"You can receive compensation.", "", ""},
	} {
		if got := decidingLine(tc.answer, tc.listed, cs); got != tc.want {
			t.Errorf("decidingLine(%q, %q) = %q, want %q", tc.answer, tc.listed, got, tc.want)
		}
	}
	// A graph fact whose property names the unit ("distance_km: 5921", as the extraction writes a table's
	// numbers) is a value as "5,921 km" is.
	prop := source{kind: KindFact, fact: graphrag.Fact{ID: "f", Sentence: "Munich DISTANCE_FROM Delhi (distance_km: 5921)"}}
	srcs = []source{euRule(), prop}
	cs = comparisons(q, keyLines(q, srcs, 4), srcs)
	if got := decidingLine("600 EUR [1].", "", cs); got != "5921 km [2] meets the condition of “all other flights over 3,500 km: 600 EUR” [1]." {
		t.Errorf("decidingLine with the distance as a fact's property = %q", got)
	}
	srcs = []source{euRule(), distances("t", "| Delhi | 5,921 km |\n| Paris | 684 km |\n")}
	// "1,500 km or less" states its threshold as 1,500 km.
	q = "How much can I receive if I am denied boarding on a flight from Paris to Munich?"
	cs = comparisons(q, keyLines(q, srcs, 4), srcs)
	if got := decidingLine("250 EUR, as 684 km is 1,500 km or less.", "", cs); got != "" {
		t.Errorf("decidingLine for an answer stating 1,500 km = %q, want none", got)
	}
	if got := decidingLine("250 EUR.", "", cs); !strings.Contains(got, "684 km [2] meets the condition of “flights of 1,500 km or less: 250 EUR” [1]") {
		t.Errorf("decidingLine(250 EUR) = %q", got)
	}
}

// euRule is EU261's tiers as a passage.
func euRule() source {
	return source{kind: KindChunk, chunk: graphrag.Chunk{ID: "r", DocName: "eu261.md", Text: "EU261 > Compensation\n\n" +
		"- flights of 1,500 km or less: 250 EUR\n- intra-EU flights over 1,500 km, and all other flights between 1,500 km and 3,500 km: 400 EUR\n" +
		"- all other flights over 3,500 km: 600 EUR\n"}}
}

// distances is a table of distances from Munich with these rows, as a passage.
func distances(id, rows string) source {
	return source{kind: KindChunk, chunk: graphrag.Chunk{ID: id, DocName: "distances.md", Text: "Distances from Munich\n\n" +
		"| city | distance from Munich |\n| --- | --- |\n" + rows}}
}

// A yes to a yes-or-no question whose case does not meet the condition of the rule line it asks about is
// contradicted; a no, a question of another form, or a case that meets it is not.
func TestContradictedYes(t *testing.T) {
	policy := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "p", DocName: "handbook.md", Text: "TRV-117 Class of travel\n\n" +
		"Business class is permitted when the great-circle distance exceeds 5,000 km. Premium economy may be booked for flights " +
		"between 3,000 km and 5,000 km."}}
	for _, tc := range []struct{ city, km, question, answer, want string }{
		{"Dubai", "4,569 km", "May an employee book business class from Munich to Dubai?", "Yes, since it is over 3,000 km.",
			"4,569 km [2] does not meet the condition of “Business class is permitted when the great-circle distance exceeds 5,000 km.” [1]"},
		{"Dubai", "4,569 km", "May an employee book business class from Munich to Dubai?", "No: premium economy at most.", ""},
		{"Dubai", "4,569 km", "Which class may an employee book from Munich to Dubai?", "Yes, business class.", ""},
		{"Delhi", "5,921 km", "May an employee book business class from Munich to Delhi?", "Yes, the distance exceeds 5,000 km.", ""},
	} {
		fact := source{kind: KindFact, fact: graphrag.Fact{ID: "f", Sentence: tc.city + " DISTANCE_FROM_MUNICH " + tc.km}}
		srcs := []source{policy, fact}
		cs := comparisons(tc.question, keyLines(tc.question, srcs, 24), srcs)
		if got := contradictedYes(tc.question, tc.answer, cs); got != tc.want {
			t.Errorf("contradictedYes(%q, %q) = %q, want %q", tc.question, tc.answer, got, tc.want)
		}
	}
}
