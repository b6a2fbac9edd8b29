package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Summary aggregates the outcomes of one pipeline over a group of questions.
type Summary struct {
	Pipeline, Category string
	N, Correct         int
	Errors             int
	Recall5            float64 // mean over the questions with gold documents
	withGold           int
	Facts              float64 // per question
	Calls, Rounds      float64 // per question
	MaxCalls           int
	Tokens             float64 // prompt + completion, per question
	Seconds            float64 // wall time per question
}

// Summarize groups outcomes by pipeline (in first-seen order) and category ("all" for every question).
func Summarize(outcomes []Outcome) []Summary {
	type key struct{ p, c string }
	idx := map[key]int{}
	var out []Summary
	add := func(k key, o Outcome) {
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Summary{Pipeline: k.p, Category: k.c})
		}
		s := &out[i]
		s.N++
		if o.Correct {
			s.Correct++
		}
		if o.Error != "" {
			s.Errors++
		}
		if o.Recall5 != nil {
			s.Recall5 += *o.Recall5
			s.withGold++
		}
		s.Facts += float64(o.Facts)
		s.Calls += float64(o.Calls)
		s.Rounds += float64(o.Rounds)
		s.MaxCalls = max(s.MaxCalls, o.Calls)
		s.Tokens += float64(o.PromptTokens + o.CompletionTokens)
		s.Seconds += o.Seconds
	}
	for _, o := range outcomes {
		add(key{o.Pipeline, o.Category}, o)
		add(key{o.Pipeline, "all"}, o)
	}
	for i := range out {
		s := &out[i]
		n := float64(s.N)
		if s.withGold > 0 {
			s.Recall5 /= float64(s.withGold)
		}
		s.Facts, s.Calls, s.Rounds, s.Tokens, s.Seconds = s.Facts/n, s.Calls/n, s.Rounds/n, s.Tokens/n, s.Seconds/n
	}
	return out
}

// Find returns the summary of pipeline over category ("all" for every question).
func Find(sums []Summary, pipeline, category string) (Summary, bool) {
	for _, s := range sums {
		if s.Pipeline == pipeline && s.Category == category {
			return s, true
		}
	}
	return Summary{}, false
}

// WriteTables writes one markdown table per category, then one over all questions; rows are pipelines.
func WriteTables(w io.Writer, outcomes []Outcome) error {
	sums := Summarize(outcomes)
	var pipelines, cats []string
	for _, s := range sums {
		if !slices.Contains(pipelines, s.Pipeline) {
			pipelines = append(pipelines, s.Pipeline)
		}
		if s.Category != "all" && !slices.Contains(cats, s.Category) {
			cats = append(cats, s.Category)
		}
	}
	slices.SortStableFunc(cats, func(a, b string) int { return rank(a) - rank(b) })
	var b strings.Builder
	for _, c := range append(cats, "all") {
		title := c
		if c == "all" {
			title = "overall"
		}
		n := 0
		for _, p := range pipelines {
			s, _ := Find(sums, p, c)
			n = max(n, s.N)
		}
		fmt.Fprintf(&b, "### %s (%d questions)\n\n", title, n)
		b.WriteString("| pipeline | correct | recall@5 | facts/q | calls/q | max calls | rounds/q | tokens/q | time/q |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, p := range pipelines {
			s, ok := Find(sums, p, c)
			if !ok {
				continue
			}
			recall := "n/a"
			if s.withGold > 0 {
				recall = fmt.Sprintf("%.2f", s.Recall5)
			}
			correct := fmt.Sprintf("%d/%d", s.Correct, s.N)
			if s.Errors > 0 {
				correct += fmt.Sprintf(" (%d errors)", s.Errors)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %.1f | %.1f | %d | %.1f | %.0f | %s |\n", p, correct, recall, s.Facts,
				s.Calls, s.MaxCalls, s.Rounds, s.Tokens, seconds(s.Seconds))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rank(cat string) int {
	if i := slices.Index(categoryOrder, cat); i >= 0 {
		return i
	}
	return len(categoryOrder)
}

func seconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0f ms", s*1000)
	}
	return fmt.Sprintf("%.1f s", s)
}
