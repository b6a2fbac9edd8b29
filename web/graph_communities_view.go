package web

import "strconv"

// CommunitiesPanel is the graph page's section on the collection's topics (the graph's communities) and
// their summaries, which questions about the whole collection are answered from.
type CommunitiesPanel struct {
	CSRF                    string
	Communities, Summarized int
	// Estimate is set when the person asked what summarising would take: nothing has started yet.
	Estimate *SummaryEstimate
	Run      *SummaryRunView // the run going on or the last one, nil before any
	// Unavailable says why summaries cannot be written here (no model); empty when they can.
	Unavailable string
}

// SummaryEstimate is what a summary run will do and cost, known before its first model call.
type SummaryEstimate struct {
	Communities, Calls, PromptTokens, MaxCompletionTokens, Tokens, Left int
}

// SummaryRunView is how far a summary run is.
type SummaryRunView struct {
	Running                               bool
	Done, Total, Written, Failed, Changed int
	Calls, Tokens                         int // used so far
	PlannedCalls, PlannedTokens           int // the estimate it started with
	Current                               string
	Error                                 string
}

// topics counts topics in words: "1 topic", "3 topics".
func topics(n int) string {
	if n == 1 {
		return "1 topic"
	}
	return strconv.Itoa(n) + " topics"
}
