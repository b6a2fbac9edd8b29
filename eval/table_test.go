package eval

import (
	"strings"
	"testing"
)

func TestWriteTables(t *testing.T) {
	r := func(v float64) *float64 { return &v }
	outcomes := []Outcome{
		{Pipeline: "naive", Category: MultiHop, Recall5: r(0.5), Calls: 1, Rounds: 1, PromptTokens: 900, CompletionTokens: 100, Seconds: 0.2},
		{Pipeline: "naive", Category: Factual, Verdict: Verdict{Correct: true}, Recall5: r(1), Calls: 1, Rounds: 1, Seconds: 0.1},
		{Pipeline: "advanced", Category: MultiHop, Verdict: Verdict{Correct: true}, Recall5: r(1), Facts: 3, Calls: 8, Rounds: 6,
			PromptTokens: 9000, CompletionTokens: 1000, Seconds: 2.5},
		{Pipeline: "advanced", Category: Factual, Recall5: r(1), Calls: 4, Rounds: 4, Seconds: 1.5, Error: "boom"},
		{Pipeline: "advanced", Category: Unanswerable, Verdict: Verdict{Correct: true}, Calls: 12, Rounds: 12, Seconds: 1},
	}
	var b strings.Builder
	if err := WriteTables(&b, outcomes); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"### factual (1 questions)",
		"| advanced | 0/1 (1 errors) | 1.00 | 0.0 | 4.0 | 4 | 4.0 | 0 | 1.5 s |",
		"### multi_hop (1 questions)",
		"| naive | 0/1 | 0.50 | 0.0 | 1.0 | 1 | 1.0 | 1000 | 200 ms |",
		"| advanced | 1/1 | 1.00 | 3.0 | 8.0 | 8 | 6.0 | 10000 | 2.5 s |",
		"### unanswerable (1 questions)",
		"| advanced | 1/1 | n/a | 0.0 | 12.0 | 12 | 12.0 | 0 | 1.0 s |",
		"### overall (3 questions)",
		"| advanced | 2/3 (1 errors) | 1.00 | 1.0 | 8.0 | 12 | 7.3 | 3333 | 1.7 s |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "### factual") > strings.Index(out, "### multi_hop") {
		t.Errorf("categories out of order:\n%s", out)
	}
}
