package agent_test

import (
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// The configuration for a model too small to judge (AGENT_SKIP=decide,grading,audit, what the local
// models install): one model call, and the answer, written without a single marker as such models do,
// reaches the reader with its sources matched by wording and its unsupported sentence named.
func TestSmallModelAnswerGetsItsSourcesByWording(t *testing.T) {
	m := newModel(t)
	m.on(taskGenerate, func(c call) llmtest.Reply {
		if c.find("S1 and S8") == 0 {
			t.Errorf("the passage about the S-Bahn is not among the sources:\n%s", c.LastUser())
		}
		return say("The S-Bahn lines S1 and S8 connect the airport with the central station every 10 minutes. " +
			"The trains are painted gold and serve free champagne on board.")
	})
	tech := agent.DefaultTechniques()
	if err := tech.Skip("decide, grading,audit"); err != nil {
		t.Fatal(err)
	}
	res, rec := ask(t, m.agent(agent.Config{Techniques: tech}, nil, nil), "Which S-Bahn lines connect Munich Airport with the central station?")

	want := []string{agent.NodeDecide, agent.NodeRetrieve, agent.NodeGrade, agent.NodeGenerate, agent.NodeAttribute}
	if got := path(res.Trace); !equal(got, want) {
		t.Fatalf("path = %v\nwant   %v", got, want)
	}
	if res.Usage.Calls != 1 {
		t.Errorf("%d model calls, want 1 (the answer)", res.Usage.Calls)
	}
	if !res.Attributed || len(res.Citations) == 0 || !docNames(res.Citations)["munich-travel-tips.md"] {
		t.Fatalf("attributed %v, citations %+v: want the travel tips cited by wording", res.Attributed, res.Citations)
	}
	if !strings.Contains(res.Answer, "every 10 minutes [") {
		t.Errorf("answer %q: want a marker after the matched sentence", res.Answer)
	}
	if len(res.Unmatched) != 1 || !strings.Contains(res.Unmatched[0], "champagne") {
		t.Errorf("unmatched %q, want the invented sentence", res.Unmatched)
	}
	if got := rec.streamed(); got != res.Answer {
		t.Errorf("the screen ends with %q, not the cited answer %q", got, res.Answer)
	}
	summary := of(res.Trace, agent.EventNodeFinished)[len(want)-1].Summary
	if !strings.Contains(summary, "matched") || !strings.Contains(summary, "champagne") {
		t.Errorf("the step does not say what was matched and what was not: %q", summary)
	}
}

// Small models fall into loops, writing the same sentence until the token limit; the answer stops at the
// first sentence written twice, and the trace says why.
func TestAnswerStopsWhenTheModelRepeatsItself(t *testing.T) {
	m := newModel(t)
	loop := strings.Repeat("A taxi to the airport costs around one euro. ", 200)
	m.on(taskGenerate, func(c call) llmtest.Reply {
		return say("The S-Bahn lines S1 and S8 connect the airport with the central station [1]. " + loop)
	})
	tech := agent.DefaultTechniques()
	if err := tech.Skip("decide,grading,audit"); err != nil {
		t.Fatal(err)
	}
	res, rec := ask(t, m.agent(agent.Config{Techniques: tech}, nil, nil), "Which S-Bahn lines connect Munich Airport with the central station?")
	want := "The S-Bahn lines S1 and S8 connect the airport with the central station [1]. A taxi to the airport costs around one euro."
	if res.Answer != want {
		t.Errorf("answer = %q\nwant     %q", res.Answer, want)
	}
	if got := rec.streamed(); got != res.Answer {
		t.Errorf("the screen ends with %q", got)
	}
	errs := of(res.Trace, agent.EventError)
	if len(errs) != 1 || !strings.Contains(errs[0].Error, "repeating") {
		t.Errorf("error events %+v, want one saying the model repeated itself", errs)
	}
}

func TestSkipSwitchesOffNamedTechniquesAndRefusesUnknownOnes(t *testing.T) {
	tech := agent.DefaultTechniques()
	if err := tech.Skip(" Grading, audit ,,decide"); err != nil {
		t.Fatal(err)
	}
	want := agent.DefaultTechniques()
	want.Grading, want.Audit, want.Decide = false, false, false
	if tech != want {
		t.Errorf("techniques %+v, want %+v", tech, want)
	}
	err := tech.Skip("grading,gradin")
	if err == nil || !strings.Contains(err.Error(), `"gradin"`) || !strings.Contains(err.Error(), "known: decide, graph") {
		t.Errorf("err = %v, want the unknown name and the known ones", err)
	}
}

// The whole loop with a model that approves everything: its "fully" does not stand against sentences that
// no source supports by wording.
func TestAuditCannotApproveWhatNoSourceSays(t *testing.T) {
	m := newModel(t)
	m.on(taskDecide, func(c call) llmtest.Reply { return decide(true) })
	m.on(taskGrade, func(c call) llmtest.Reply {
		return grades(c, "", "", func(it item) (bool, string) { return strings.Contains(it.Text, "S1 and S8"), "names the lines" })
	})
	m.on(taskGenerate, func(c call) llmtest.Reply {
		return say("The S-Bahn lines S1 and S8 connect the airport with the central station every 10 minutes. " +
			"The trains are painted gold and serve free champagne on board.")
	})
	m.on(taskAudit, func(c call) llmtest.Reply { return audit(agent.GroundedFully, true, "") })
	res, _ := ask(t, m.agent(agent.Config{}, nil, nil), "Which S-Bahn lines connect Munich Airport with the central station?")
	if res.Grounded != agent.GroundedPartially || len(res.Unmatched) != 1 {
		t.Errorf("grounded %q, unmatched %q: want partially, with the champagne sentence", res.Grounded, res.Unmatched)
	}
}
