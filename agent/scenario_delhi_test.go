package agent_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/llm/llmtest"
)

const delhiQuestion = "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"

// scriptDelhi is a model that keeps the EU261 tiers on the first pass but, judging documents against the
// question alone, sets the distance table aside; its hypothesis asks for the distance, it plans that
// sub-question, and on the second pass the distance (a graph fact and its table) is judged useful.
func scriptDelhi(m *model) {
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true, "EU261 denied boarding compensation amount") })
	m.on(taskGrade, func(c call) llmtest.Reply {
		askedDistance := slices.ContainsFunc(c.listed("Queries asked so far"), func(q string) bool { return strings.Contains(q, "distance") })
		useful := func(it item) (bool, string) {
			switch {
			case strings.Contains(it.Text, "600 EUR") && strings.Contains(it.Text, "3,500 km"):
				return true, "EU261 amounts by flight distance"
			case strings.Contains(it.Text, "Delhi") && (strings.Contains(it.Text, "5921") || strings.Contains(it.Text, "5,921")):
				if askedDistance {
					return true, "the Delhi-Munich distance"
				}
				return false, "a distance, not a compensation amount"
			}
			return false, "not about denied-boarding compensation"
		}
		if askedDistance {
			return grades(c, "Delhi to Munich is 5,921 km, over 3,500 km, so the EU261 amount is 600 EUR.", "", useful)
		}
		return grades(c, "EU261 pays 250, 400 or 600 EUR depending on the flight distance; the distance from Delhi to Munich is needed.",
			"the distance between Delhi and Munich", useful)
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		tiers := c.find("600 EUR", "3,500 km")
		dist := c.find("Delhi", "5921")
		if dist == 0 {
			dist = c.find("Delhi", "5,921")
		}
		if dist == 0 {
			return say(fmt.Sprintf("Under EU261 denied boarding pays 250, 400 or 600 EUR depending on the distance [%d]. The sources do not give the distance of this flight.", tiers))
		}
		return say(fmt.Sprintf("You can receive **600 EUR**. EU261 pays 600 EUR for flights over 3,500 km [%d], and Delhi is 5,921 km from Munich [%d].", tiers, dist))
	})
	m.on(taskAudit, func(c call) llmtest.Reply {
		if strings.Contains(c.LastUser(), "**600 EUR**") {
			return audit("fully", true, "")
		}
		return audit("fully", false, "It does not say which amount applies to Delhi-Munich: the flight distance is missing.")
	})
	m.on(taskTransform, func(c call) llmtest.Reply { return queries("distance between Delhi and Munich") })
}

func TestDelhiMunichTakesTheDistanceHop(t *testing.T) {
	m := newModel(t)
	scriptDelhi(m)
	res, rec := ask(t, m.agent(agent.Config{}, nil, nil), delhiQuestion)

	want := []string{
		agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade, agent.NodeGenerate, agent.NodeAudit,
		agent.NodeTransform, agent.NodeRetrieve, agent.NodeGrade, agent.NodeGenerate, agent.NodeAudit,
	}
	if got := path(res.Trace); !equal(got, want) {
		t.Fatalf("path = %v\nwant   %v", got, want)
	}
	if !strings.Contains(res.Answer, "600 EUR") || res.Grounded != agent.GroundedFully || !res.Useful || res.NotFound {
		t.Fatalf("answer %q grounded %q useful %v not found %v", res.Answer, res.Grounded, res.Useful, res.NotFound)
	}
	names := docNames(res.Citations)
	if !names["flight-compensation-eu-vs-us.md"] || !names["munich-city-distances.md"] {
		t.Fatalf("citations %+v: want both the compensation rules and the distance table", res.Citations)
	}

	// First pass: the tiers are kept, the hypothesis asks for the distance.
	docs := of(res.Trace, agent.EventDocuments)
	if len(docs) != 2 {
		t.Fatalf("%d documents events, want one per pass", len(docs))
	}
	if !slices.ContainsFunc(docs[0].Docs, func(d agent.DocVerdict) bool {
		return d.Useful && d.DocName == "flight-compensation-eu-vs-us.md"
	}) {
		t.Errorf("first pass kept no compensation passage: %+v", docs[0].Docs)
	}
	hyps := of(res.Trace, agent.EventHypothesis)
	if len(hyps) == 0 || !strings.Contains(hyps[0].Hypothesis, "distance from Delhi to Munich is needed") {
		t.Errorf("first hypothesis = %+v", hyps)
	}
	// The sub-question comes from transform_query; the original question is kept.
	qs := of(res.Trace, agent.EventQueries)
	if len(qs) != 2 || qs[1].Node != agent.NodeTransform || !slices.Contains(qs[1].Queries, "distance between Delhi and Munich") {
		t.Errorf("queries events = %+v", qs)
	}
	if res.Standalone != delhiQuestion {
		t.Errorf("standalone = %q: the question must never be rewritten", res.Standalone)
	}
	// The second pass found the distance through the graph: Munich DISTANCE_FROM Delhi.
	facts := of(res.Trace, agent.EventFacts)
	if len(facts) == 0 || !slices.ContainsFunc(facts[len(facts)-1].Facts, func(f agent.FactRef) bool {
		return strings.Contains(f.Sentence, "DISTANCE_FROM Delhi") && strings.Contains(f.Sentence, "5921")
	}) {
		t.Errorf("facts events = %+v: want the Munich-Delhi distance fact", facts)
	}
	if !slices.ContainsFunc(res.Citations, func(c agent.Citation) bool {
		return c.Kind == agent.KindFact && strings.Contains(c.Sentence, "5921") && c.DocName == "munich-city-distances.md"
	}) {
		t.Errorf("citations %+v: want the distance fact, traced to its document", res.Citations)
	}

	// The trace says where the graph led retrieval on: the entities its facts lead to were searched too.
	if !slices.ContainsFunc(res.Trace, func(e agent.Event) bool {
		return e.Node == agent.NodeRetrieve && e.Type == agent.EventNodeFinished && strings.Contains(e.Summary, "; followed the graph on to ")
	}) {
		t.Errorf("no retrieval step names the entities the graph led on to: %+v", res.Trace)
	}

	// Grading: one call per pass, the second judged against the sub-question, kept passages not re-read.
	grades := m.prompts(taskGrade)
	if len(grades) != 2 {
		t.Fatalf("%d grading calls, want 2 (one batch per pass)", len(grades))
	}
	if !strings.Contains(grades[1], "- distance between Delhi and Munich") {
		t.Errorf("second grading prompt lacks the sub-question:\n%s", grades[1])
	}
	if strings.Contains(grades[1], "3,500 km: 600 EUR") {
		t.Errorf("second grading re-read the kept tiers passage:\n%s", grades[1])
	}
	// Decide, grade, generate, audit; transform, grade, generate, audit: eight rounds of one call each.
	if res.Usage.Calls != 8 || res.Usage.Rounds != 8 {
		t.Errorf("usage = %+v, want 8 calls in 8 rounds", res.Usage)
	}
	if got := rec.streamed(); strings.TrimSpace(got) != res.Answer {
		t.Errorf("streamed text after the last reset = %q, want the answer %q", got, res.Answer)
	}
	if n := len(of(rec.all(), agent.EventAnswerReset)); n != 1 {
		t.Errorf("%d answer_reset events, want 1 (the second answer replaces the first)", n)
	}
	last := rec.all()[len(rec.all())-1]
	if last.Type != agent.EventAnswer || last.Result == nil || last.Result.Answer != res.Answer {
		t.Errorf("last event = %+v, want the answer", last)
	}
}
