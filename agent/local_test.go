package agent_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/llm/llmtest"
)

const (
	taskCompact = "compact answer"
)

type compactReply struct {
	Facts      []string `json:"facts"`
	Reasoning  string   `json:"reasoning"`
	Answerable bool     `json:"answerable"`
	Answer     string   `json:"answer"`
	Search     []string `json:"search"`
}

func localAgent(m *model) *agent.Agent {
	return m.agent(agent.Config{Profile: agent.ProfileLocal}, nil, nil)
}

// The local profile answers the reference question in one call: sources first and the question last (so
// the calls of one question share their prefix in the server's prompt cache), facts and reasoning before
// the verdict, and the answer shown with the facts it rests on.
func TestLocalProfileAnswersInOneCall(t *testing.T) {
	m := newModel(t)
	m.on(taskCompact, func(c call) llmtest.Reply {
		user := c.LastUser()
		if !strings.HasPrefix(user, "Sources:\n<data n=\"1\"") || !strings.HasSuffix(strings.TrimSpace(user), "Question: "+c.question()) {
			t.Errorf("want the sources first and the question last:\n%s", user)
		}
		if c.find("5921") == 0 || c.find("600 EUR") == 0 {
			t.Errorf("the distance or the tiers are not among the sources:\n%s", user)
		}
		return reply(compactReply{
			Facts: []string{
				"Delhi is 5,921 km from Munich [" + strconv.Itoa(c.find("5921")) + "]",
				"All other flights over 3,500 km: 600 EUR [" + strconv.Itoa(c.find("600 EUR")) + "]",
			},
			Reasoning:  "The flight is longer than 3,500 km, so the highest tier applies.",
			Answerable: true,
			Answer:     "You can receive 600 EUR, because Delhi is 5,921 km from Munich, more than 3,500 km.",
			Search:     []string{},
		})
	})
	res, rec := ask(t, localAgent(m), "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?")
	if res.Usage.Calls != 1 || m.count(taskGrade)+m.count(taskAudit)+m.count(taskDecide) != 0 {
		t.Errorf("%d calls (grade %d, audit %d, decide %d), want the one answer call", res.Usage.Calls,
			m.count(taskGrade), m.count(taskAudit), m.count(taskDecide))
	}
	if !strings.HasPrefix(res.Answer, "You can receive 600 EUR") || !strings.Contains(res.Answer, "- Delhi is 5,921 km from Munich [") {
		t.Errorf("answer = %q", res.Answer)
	}
	if res.NotFound || res.Grounded != agent.GroundedFully || len(res.Citations) < 2 {
		t.Errorf("not found %v, grounded %q, citations %+v: want a checked answer citing both facts", res.NotFound, res.Grounded, res.Citations)
	}
	if got := rec.streamed(); got != res.Answer {
		t.Errorf("the screen shows %q, not the answer", got)
	}
}

// The 1.5B model's answer to the reference question in a quiet run: the amount and the distance, not the
// threshold that decides the tier. The answer is listed with the step Hopwise computed, the distance
// meeting the condition of the 600 EUR line, with both sources cited; an answer that states the threshold
// itself gets no such line.
func TestLocalProfileListsTheRuleLineTheAnswerRestsOn(t *testing.T) {
	for _, tc := range []struct {
		answer string
		want   bool
	}{
		{"You can receive 600 EUR [%d].", true},
		{"You can receive 600 EUR [%d], since the distance is over 3,500 km.", false},
	} {
		m := newModel(t)
		var rule, distance int
		m.on(taskCompact, func(c call) llmtest.Reply {
			rule, distance = c.find("600 EUR"), c.find("5921")
			return reply(compactReply{
				Facts:      []string{"Delhi is 5,921 km from Munich [" + strconv.Itoa(distance) + "]"},
				Reasoning:  "Delhi is 5,921 km from Munich, so it falls under all other flights over 3,500 km: 600 EUR.", // not shown
				Answerable: true,
				Answer:     fmt.Sprintf(tc.answer, rule),
				Search:     []string{},
			})
		})
		res, _ := ask(t, localAgent(m), "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?")
		step := "meets the condition of “all other flights over 3,500 km: 600 EUR” [" + strconv.Itoa(rule) + "]."
		if got := strings.Contains(res.Answer, step); got != tc.want || rule == 0 {
			t.Errorf("answer %q listed with the step %q: %v, want %v:\n%s", tc.answer, step, got, tc.want, res.Answer)
		}
		cited := map[int]bool{}
		for _, c := range res.Citations {
			cited[c.N] = true
		}
		if tc.want && (!cited[rule] || !cited[distance] || !strings.Contains(res.Answer, "km ["+strconv.Itoa(distance)+"] meets")) {
			t.Errorf("citations %+v: want the rule [%d] and the distance [%d] cited, the distance first in the step:\n%s", res.Citations, rule, distance, res.Answer)
		}
	}
}

// A yes that the comparison with the sources' condition contradicts (Dubai is 4,569 km from Munich;
// business class needs more than 5,000 km) is set aside and asked for again with the reason; the second
// answer, a no, stands.
func TestLocalProfileSetsAsideAContradictedYes(t *testing.T) {
	m := newModel(t)
	var prompts []string
	m.on(taskCompact, func(c call) llmtest.Reply {
		prompts = append(prompts, c.LastUser())
		answer := "Yes, business class is permitted."
		if len(prompts) > 1 {
			answer = "No: business class needs a distance over 5,000 km, and Dubai is 4569 km from Munich [" + strconv.Itoa(c.find("4569")) + "]."
		}
		facts := []string{"Business class is allowed when the distance exceeds 5,000 km [" + strconv.Itoa(c.find("5,000 km")) + "]"}
		return reply(compactReply{Facts: facts, Reasoning: "The distance decides.", Answerable: true, Answer: answer, Search: []string{}})
	})
	res, _ := ask(t, localAgent(m), "May an employee book business class from Munich to Dubai?")
	if len(prompts) != 2 || !strings.Contains(prompts[1], "does not meet the condition of “Business class") {
		t.Fatalf("%d answer calls; want two, the second naming the unmet condition:\n%s", len(prompts), prompts[len(prompts)-1])
	}
	if !strings.HasPrefix(res.Answer, "No: business class") || res.NotFound {
		t.Errorf("answer = %q, want the second answer, the no", res.Answer)
	}
}

// A model that marks an invention answerable (a subject of one document joined to a name of another) is
// caught by the claim check and asked once more, the invention named; the second pass runs the searches
// the model asked for, its answer call starting with the first call's prompt, and the run refuses
// honestly, with none of the loop's notes in the answer.
func TestLocalProfileRefusesWhatNoSourceStatesTogether(t *testing.T) {
	m := newModel(t)
	var prompts []string
	m.on(taskCompact, func(c call) llmtest.Reply {
		prompts = append(prompts, c.LastUser())
		return reply(compactReply{
			Facts:      []string{"Lena Vogt founded Nexa AI [1]"},
			Reasoning:  "Lena Vogt is a chief executive.",
			Answerable: true,
			Answer:     "The chief executive of Lufthansa is Lena Vogt. Critique: the sources do not name Lufthansa's chief.",
			Search:     []string{"Lufthansa chief executive officer"},
		})
	})
	res, _ := ask(t, localAgent(m), "Who is the chief executive of Lufthansa today?")
	if !res.NotFound || strings.Contains(res.Answer, "Lena") || strings.Contains(res.Answer, "Critique") {
		t.Errorf("not found %v, answer %q: want an honest refusal", res.NotFound, res.Answer)
	}
	if len(prompts) != 3 || res.Usage.Calls != 3 {
		t.Fatalf("%d answer calls, %d calls in all: want 3 (two passes at most, one answer asked for again, no other call)", len(prompts), res.Usage.Calls)
	}
	if again := strings.TrimPrefix(prompts[1], prompts[0]); again == prompts[1] || !strings.Contains(again, "The chief executive of Lufthansa is Lena Vogt") {
		t.Errorf("the answer asked for again does not add the set-aside answer to the first prompt:\n%s", prompts[1])
	}
	firstSources, _, _ := strings.Cut(prompts[0], "\nQuestion: ")
	firstSources, _, _ = strings.Cut(firstSources, "\nLines of the sources") // the key lines follow the sources of each pass
	if !strings.HasPrefix(prompts[2], firstSources) || len(prompts[2]) <= len(prompts[0]) || strings.Contains(prompts[2], "Set aside") {
		t.Errorf("the second pass's prompt does not start with the first one's sources, or repeats the set-aside answer:\n%s\n---\n%s", prompts[0], prompts[2])
	}
	if q := of(res.Trace, agent.EventQueries); len(q) != 1 || q[0].Queries[0] != "Lufthansa chief executive officer" {
		t.Errorf("query events %+v, want the model's search", q)
	}
}

// An answer the claim check sets aside is asked for once more with the set-aside sentence named after the
// question (the first prompt with lines added, so the server reads only those), and the corrected answer
// stands: the 1.5B model gave AY to Lufthansa, whose row is in the registry table beside Finnair's.
func TestLocalProfileAsksAgainAfterTheClaimCheck(t *testing.T) {
	m := newModel(t)
	var prompts []string
	m.on(taskCompact, func(c call) llmtest.Reply {
		prompts = append(prompts, c.LastUser())
		airline := "Lufthansa"
		if strings.Contains(c.LastUser(), "Set aside") {
			airline = "Finnair"
		}
		n := strconv.Itoa(c.find("Finnair"))
		return reply(compactReply{Facts: []string{}, Reasoning: "The registry lists the codes.", Answerable: true,
			Answer: airline + " has the IATA code AY [" + n + "].", Search: []string{}})
	})
	res, rec := ask(t, localAgent(m), "Which airline has the IATA code AY?")
	if res.NotFound || !strings.HasPrefix(res.Answer, "Finnair has the IATA code AY") || strings.Contains(res.Answer, "Lufthansa") {
		t.Fatalf("not found %v, answer %q: want the corrected answer", res.NotFound, res.Answer)
	}
	if len(prompts) != 2 || res.Usage.Calls != 2 {
		t.Fatalf("%d answer calls, %d calls in all: want the answer and one more", len(prompts), res.Usage.Calls)
	}
	if again := strings.TrimPrefix(prompts[1], prompts[0]); again == prompts[1] || !strings.Contains(again, "Lufthansa has the IATA code AY") {
		t.Errorf("the second prompt does not add the set-aside answer to the first:\n%s", prompts[1])
	}
	if got := rec.streamed(); got != res.Answer {
		t.Errorf("the screen shows %q, not the answer", got)
	}
}

// A question that asks for an amount is not answered by a sentence without one, however well every word of
// it stands on a source: the answer is asked for again, and the amount stands.
func TestLocalProfileWantsTheNumberAsked(t *testing.T) {
	m := newModel(t)
	m.on(taskCompact, func(c call) llmtest.Reply {
		n := strconv.Itoa(c.find("2,150 US dollars"))
		answer := "The US Department of Transportation does not require airlines to pay cash compensation when a flight is delayed [" + n + "]."
		if strings.Contains(c.LastUser(), "asks for a number") {
			answer = "At most 400% of the one-way fare, capped at 2,150 US dollars [" + n + "]."
		}
		return reply(compactReply{Facts: []string{}, Reasoning: "The US section gives the caps.", Answerable: true, Answer: answer, Search: []string{}})
	})
	res, _ := ask(t, localAgent(m), "In the US, what is the most an airline must pay a passenger bumped from an oversold domestic flight who arrives more than two hours late?")
	if res.NotFound || !strings.Contains(res.Answer, "2,150 US dollars") || m.count(taskCompact) != 2 {
		t.Errorf("not found %v, %d answer calls, answer %q: want the cap, asked for again once", res.NotFound, m.count(taskCompact), res.Answer)
	}
}

// Not answerable in the model's own verdict, written after its reasoning: no answer is shown, whatever the
// answer field holds.
func TestLocalProfileTrustsAVerdictOfNotAnswerable(t *testing.T) {
	m := newModel(t)
	m.on(taskCompact, func(c call) llmtest.Reply {
		return reply(compactReply{Facts: []string{}, Reasoning: "The handbook gives the policy, not what Chen Wei took.",
			Answer: "Chen Wei took 24 days.", Search: []string{}})
	})
	res, _ := ask(t, localAgent(m), "How many vacation days did Chen Wei take in 2025?")
	if !res.NotFound || strings.Contains(res.Answer, "24") {
		t.Errorf("not found %v, answer %q: want a refusal", res.NotFound, res.Answer)
	}
	if m.count(taskCompact) != 1 {
		t.Errorf("%d answer calls: no search asked for ends the research", m.count(taskCompact))
	}
}

// A model that lists only the rule: the graph fact that joins two places of the question comes with the
// answer, so that the reader sees the distance the amount rests on.
func TestLocalProfileListsTheGraphFactThatLinksTheQuestion(t *testing.T) {
	m := newModel(t)
	m.on(taskCompact, func(c call) llmtest.Reply {
		return reply(compactReply{
			Facts:      []string{"Flights over 3,500 km: 600 EUR [" + strconv.Itoa(c.find("600 EUR")) + "]"},
			Reasoning:  "The flight is long.",
			Answerable: true,
			Answer:     "You can receive 600 EUR [" + strconv.Itoa(c.find("600 EUR")) + "].",
			Search:     []string{},
		})
	})
	res, _ := ask(t, localAgent(m), "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?")
	if !strings.Contains(res.Answer, "Munich distance from Delhi (distance_km: 5921) [") {
		t.Errorf("answer %q: want the distance fact listed", res.Answer)
	}
	if strings.Contains(res.Answer, "Tenerife") || strings.Count(res.Answer, "\n- ") > 2 {
		t.Errorf("answer %q: only facts joining the question's places belong", res.Answer)
	}
}

// A small model often lists its facts without their source numbers. They are matched to their sources by
// wording, even when a graph fact listed with them carries its own number: the answer cites the rule's
// passage as well as the distance.
func TestLocalProfileCitesFactsTheModelLeftUnnumbered(t *testing.T) {
	m := newModel(t)
	rule := 0
	m.on(taskCompact, func(c call) llmtest.Reply {
		rule = c.find("600 EUR")
		return reply(compactReply{
			Facts:      []string{"All other flights over 3,500 km: 600 EUR"},
			Reasoning:  "The flight is longer than 3,500 km.",
			Answerable: true,
			Answer:     "You can receive 600 EUR for a denied boarding on this flight.",
			Search:     []string{},
		})
	})
	res, rec := ask(t, localAgent(m), "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?")
	if res.NotFound || rule == 0 {
		t.Fatalf("not found %v (rule at %d): %q", res.NotFound, rule, res.Answer)
	}
	var rulePassage, distance bool
	for _, c := range res.Citations {
		rulePassage = rulePassage || c.N == rule
		distance = distance || c.Kind == agent.KindFact
	}
	if !rulePassage || !distance {
		t.Errorf("citations %+v of %q: want the rule's source [%d] and the distance fact", res.Citations, res.Answer, rule)
	}
	if !strings.Contains(res.Answer, "600 EUR ["+strconv.Itoa(rule)+"]") {
		t.Errorf("answer %q: want the rule's fact marked [%d]", res.Answer, rule)
	}
	if got := rec.streamed(); got != res.Answer {
		t.Errorf("the screen shows %q, not the answer", got)
	}
}

// The deciding step is often in the model's reasoning rather than its facts: a reasoning sentence that
// stands on the sources backs the answer's amount, an invented one does not.
func TestLocalProfileReasoningBacksTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, reasoning, answer string
		answered                bool
	}{
		{"the tier in the reasoning", "Delhi is 5,921 km from Munich, so it falls under all other flights over 3,500 km: 600 EUR.",
			"The passenger can receive up to 600 EUR.", true},
		// 400 EUR: the amount of a tier the distance does not meet, so no step Hopwise computed backs it
		// either (600 EUR would be backed by the comparison of 5921 km with the tiers).
		{"an invented step", "Lufthansa pays 400 EUR to every passenger from Delhi.", "The passenger can receive up to 400 EUR.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t)
			m.on(taskCompact, func(c call) llmtest.Reply {
				return reply(compactReply{
					Facts:      []string{"Lufthansa LICENSED_IN Germany"},
					Reasoning:  tc.reasoning,
					Answerable: true,
					Answer:     tc.answer,
					Search:     []string{},
				})
			})
			res, _ := ask(t, localAgent(m), "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?")
			if res.NotFound == tc.answered {
				t.Errorf("not found %v, want answered %v: %q", res.NotFound, tc.answered, res.Answer)
			}
			if tc.answered && strings.Contains(res.Answer, "falls under") {
				t.Errorf("the reasoning is shown: %q", res.Answer)
			}
		})
	}
}
