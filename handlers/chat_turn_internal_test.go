package handlers

import (
	"slices"
	"testing"

	"github.com/hopwise/hopwise/agent"
)

// A reader must see when the sources were matched by Hopwise rather than cited by the model, and how
// many statements none of them supports.
func TestBadgesSayHowTheSourcesWereFound(t *testing.T) {
	texts := func(r agent.Result) []string {
		var out []string
		for _, b := range badges(r) {
			out = append(out, b.Text)
		}
		return out
	}
	cited := agent.Result{Citations: []agent.Citation{{N: 1}}}
	if got := texts(cited); len(got) != 0 {
		t.Errorf("a plain cited answer got badges %q", got)
	}
	matched := cited
	matched.Attributed, matched.Unmatched = true, []string{"The trains serve champagne."}
	want := []string{"sources matched by wording, not cited by the model", "1 statement not found in the sources"}
	if got := texts(matched); !slices.Equal(got, want) {
		t.Errorf("badges %q, want %q", got, want)
	}
	matched.Unmatched = append(matched.Unmatched, "They are gold.")
	if got := texts(matched); !slices.Contains(got, "2 statements not found in the sources") {
		t.Errorf("badges %q", got)
	}
}
