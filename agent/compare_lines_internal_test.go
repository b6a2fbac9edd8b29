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
	rule := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "r", DocName: "eu261.md", Text: "EU261 > Compensation\n\n" +
		"- flights of 1,500 km or less: 250 EUR\n- intra-EU flights over 1,500 km, and all other flights between 1,500 km and 3,500 km: 400 EUR\n" +
		"- all other flights over 3,500 km: 600 EUR\n"}}
	table := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "t", DocName: "distances.md", Text: "Distances from Munich\n\n" +
		"| city | distance from Munich |\n| --- | --- |\n| Delhi | 5,921 km |\n| Dubai | 4,569 km |\n"}}
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
	short := source{kind: KindChunk, chunk: graphrag.Chunk{ID: "t2", DocName: "distances.md", Text: "Distances from Munich\n\n" +
		"| city | distance from Munich |\n| --- | --- |\n| Paris | 684 km |\n"}}
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
