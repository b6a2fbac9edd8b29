package eval

import (
	"testing"

	"github.com/hopwise/hopwise/agent"
)

func TestMentions(t *testing.T) {
	tests := []struct {
		name, text, needle string
		want               bool
	}{
		{"case-insensitive", "Business class is permitted", "business", true},
		{"number alone", "you receive 250 EUR", "250", true},
		{"number inside a number", "you receive 1250 EUR", "250", false},
		{"number followed by digits", "2500 EUR", "250", false},
		{"thousands separator continues", "2,1500 USD", "2,150", false},
		{"number before a full stop", "capped at 2,150.", "2,150", true},
		{"code prefix", "lines S10 and S8", "S1", false},
		{"short word inside a word", "it is not covered", "no", false},
		{"short word alone", "No, it does not apply.", "no", true},
		{"short word in a name", "Northlight Capital", "no", false},
		{"longer word goes on", "ask for volunteers first", "volunteer", true},
		{"phrase goes on", "takes about 40 minutes", "40 min", true},
		{"starts inside a word", "Hauptbahnhof", "bahn", false},
		{"markdown emphasis", "It is **not covered** by EU261", "not covered", true},
		{"later occurrence counts", "S10, then S1", "S1", true},
		{"empty needle", "anything", " ", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Mentions(tc.text, tc.needle); got != tc.want {
				t.Errorf("Mentions(%q, %q) = %v, want %v", tc.text, tc.needle, got, tc.want)
			}
		})
	}
}

func TestIsRefusal(t *testing.T) {
	tests := []struct {
		name string
		res  agent.Result
		want bool
	}{
		{"agent not found", agent.Result{NotFound: true, Answer: "anything"}, true},
		{"documents do not cover", agent.Result{Answer: "Your documents do not cover this question, so I cannot answer it."}, true},
		{"sources do not say", agent.Result{Answer: "The sources do not say what the population of Munich is."}, true},
		{"could not find", agent.Result{Answer: "I could not find the gate number. Try the airline."}, true},
		{"no information", agent.Result{Answer: "There is no information about Nexa AI's revenue in 2025."}, true},
		{"not mentioned in the documents", agent.Result{Answer: "Her address is not mentioned in the documents."}, true},
		{"general knowledge preamble", agent.Result{Answer: "*From general knowledge, not from your documents:*\n\nI don't know the forecast."}, true},
		{"a subject that does not cover", agent.Result{Answer: "No. EU261 does not cover this flight, because Air India is not an EU carrier [1][2]."}, false},
		{"is not covered is an answer", agent.Result{Answer: "This flight is not covered by EU261 [1]."}, false},
		{"partial refusal later", agent.Result{Answer: "You can receive 600 EUR [1]. The sources do not say whether the flight was delayed."}, false},
		{"plain answer", agent.Result{Answer: "Lena Vogt and Arjun Mehta founded Nexa AI [1]."}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsRefusal(tc.res); got != tc.want {
				t.Errorf("IsRefusal(%q) = %v, want %v", tc.res.Answer, got, tc.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	factual := Question{Category: Factual, AnswerMustContain: [][]string{{"Lena Vogt"}, {"Arjun Mehta"}}}
	tiers := Question{Category: MultiHop, AnswerMustContain: [][]string{{"600"}}, AnswerMustNotContain: []string{"250", "400"}}
	yesNo := Question{Category: MultiHop, AnswerMustContain: [][]string{{"no", "not covered"}}, AnswerMustNotContain: []string{"yes"}}
	outside := Question{Category: OutOfCorpus}
	nobody := Question{Category: Unanswerable}
	web := []agent.Citation{{N: 1, Kind: agent.KindWeb, URL: "https://example.org"}}
	tests := []struct {
		name string
		q    Question
		res  agent.Result
		want Verdict
	}{
		{"every group", factual, agent.Result{Answer: "Lena Vogt and Arjun Mehta [1]."}, Verdict{Correct: true}},
		{"one group missing", factual, agent.Result{Answer: "Lena Vogt [1]."}, Verdict{}},
		{"refusal holding the words", factual, agent.Result{Answer: "The documents do not say whether Lena Vogt or Arjun Mehta did.", NotFound: true}, Verdict{Refusal: true}},
		{"tier chosen", tiers, agent.Result{Answer: "You can receive 600 EUR [1], because the flight is 5,921 km [2]. Shorter flights get 250 or 400 EUR."}, Verdict{Correct: true}},
		{"every tier in the first sentence", tiers, agent.Result{Answer: "You can receive 250, 400 or 600 EUR depending on the distance [1]."}, Verdict{Hedged: true}},
		{"a forbidden string inside a number does not count", tiers, agent.Result{Answer: "600 EUR for 2500 km or more [1]."}, Verdict{Correct: true}},
		{"yes and no", yesNo, agent.Result{Answer: "Yes and no: it depends [1]."}, Verdict{Hedged: true}},
		{"no alone", yesNo, agent.Result{Answer: "No, EU261 does not apply [1]. Had it been yes, ..."}, Verdict{Correct: true}},
		{"outside: refusal", outside, agent.Result{NotFound: true}, Verdict{Correct: true, Refusal: true}},
		{"outside: web answer", outside, agent.Result{Answer: "About 1.5 million [1].", Citations: web}, Verdict{Correct: true, WebCited: true}},
		{"outside: guess", outside, agent.Result{Answer: "About 1.5 million."}, Verdict{}},
		{"unanswerable: refusal", nobody, agent.Result{Answer: "I could not find it."}, Verdict{Correct: true, Refusal: true}},
		{"unanswerable: web answer is a guess", nobody, agent.Result{Answer: "Gate 12 [1].", Citations: web}, Verdict{WebCited: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Judge(tc.q, tc.res); got != tc.want {
				t.Errorf("Judge = %+v, want %+v", got, tc.want)
			}
		})
	}
}
