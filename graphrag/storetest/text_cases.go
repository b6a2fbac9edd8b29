package storetest

import (
	"strings"
	"testing"
)

var textCases = []testCase{
	{"ranks the chunk holding an identifier first", testTextIdentifiers},
	{"survives hostile queries", testTextHostile},
	{"finds chunks once embedded", testTextPending},
}

// lookAlikes are chunks whose identifiers share parts with each other.
var lookAlikes = []string{
	"Travel policy. Section TRV-117: meals during business trips are reimbursed up to 40 EUR per day.",
	"Travel policy. Section TRV-118: hotel bookings must go through the approved portal.",
	"Travel policy. Section TRV-171: taxis are reimbursed when no train runs after 22:00.",
	"Travel overview: TRV rules start on page 117 of the TRV handbook, TRV index on page 118.",
	"HR policy POL-HR-0042: parental leave lasts up to 14 weeks.",
	"HR policy POL-HR-0043: remote work needs the approval of a manager.",
	"Finance FIN-EXP-2024-07: the July 2024 expense report is due on 5 August.",
	"Finance FIN-EXP-2024-08: the August 2024 expense report is due on 5 September.",
}

func testTextIdentifiers(t *testing.T, f *fixture) {
	d := f.doc("policies.txt", "policies")
	cs := f.chunks(d, lookAlikes...)
	f.embedAll(cs)
	tests := []struct {
		name  string
		query string
		want  int // index into lookAlikes
	}{
		{"travel identifier", "TRV-117", 0},
		{"identifier in a question", "What does TRV-117 say?", 0},
		{"lower case identifier", "trv-117", 0},
		{"identifier with trailing punctuation", "TRV-171?", 2},
		{"HR identifier", "POL-HR-0042", 4},
		{"finance identifier", "FIN-EXP-2024-07", 6},
		{"finance identifier with words", "when is FIN-EXP-2024-07 due", 6},
	}
	for _, tc := range tests {
		got := f.searchText(tc.query, 5)
		if len(got) == 0 || got[0].ID != cs[tc.want].ID {
			t.Errorf("%s: SearchText(%q) = %v, want %s first", tc.name, tc.query, ids(got), cs[tc.want].ID)
			continue
		}
		checkRanks(t, tc.name, got)
		if got[0].DocName != d.Name || got[0].Text != lookAlikes[tc.want] {
			t.Errorf("%s: first result doc %q text %q, want %q %q", tc.name, got[0].DocName, got[0].Text, d.Name, lookAlikes[tc.want])
		}
	}
	if got := f.searchText("policy", 2); len(got) != 2 {
		t.Errorf("SearchText(policy, 2) = %d results, want k=2", len(got))
	}
}

func testTextHostile(t *testing.T, f *fixture) {
	d := f.doc("hostile.txt", "hostile")
	cs := f.chunks(d, lookAlikes...)
	f.embedAll(cs)
	queries := []string{
		``, `   `, `"`, `""`, `"unbalanced`, `(`, `)`, `()`, `AND OR`, `AND`, `OR`, `NOT`, `*`, `-x`, `-`, `^`,
		`NEAR(meals hotel)`, `meals AND`, `meals OR OR`, `text:meals`, `a:b:c`, `{meals}`, `[x]`, `\`, `+`,
		`'; DROP TABLE chunks; --`, `MATCH (n) DETACH DELETE n`, `trv*`, `"TRV-117" AND "hotel"`, `~meals`, `/regex/`,
		strings.Repeat("meals hotel taxi ", 400),
	}
	for _, q := range queries {
		got, err := f.s.SearchText(f.ctx, q, 3)
		if err != nil {
			t.Errorf("SearchText(%.40q) failed: %v", q, err)
			continue
		}
		if len(got) > 3 {
			t.Errorf("SearchText(%.40q) = %d results, want at most 3", q, len(got))
		}
	}
	for _, q := range []string{`"meals"`, `(meals)`, `meals*`, `-meals`, `meals AND`} {
		if got := f.searchText(q, 3); len(got) == 0 || got[0].ID != cs[0].ID {
			t.Errorf("SearchText(%q) = %v, want %s first: punctuation is not syntax", q, ids(got), cs[0].ID)
		}
	}
}

func testTextPending(t *testing.T, f *fixture) {
	d := f.doc("ferry.txt", "ferry")
	cs := f.chunks(d, "Zanzibar ferry schedule: boats leave at 7:00 and 16:00.")
	if got := f.searchText("Zanzibar", 5); len(got) != 0 {
		t.Errorf("SearchText found a pending chunk: %v; chunks are searchable once embedded", ids(got))
	}
	f.embedAll(cs)
	if got := f.searchText("Zanzibar", 5); len(got) != 1 || got[0].ID != cs[0].ID {
		t.Errorf("SearchText after embedding = %v, want [%s]", ids(got), cs[0].ID)
	}
}
