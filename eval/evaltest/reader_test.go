package evaltest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/llm/llmtest"
)

// request builds an agent request the way the agent writes one.
func request(task, user string) llmtest.Request {
	return llmtest.Request{Path: "/v1/chat/completions", Messages: []llmtest.Message{
		{Role: "system", Content: "Task: " + task + ".\nMore instructions."}, {Role: "user", Content: user}}}
}

func sources(texts ...string) string {
	var b strings.Builder
	b.WriteString("Sources:\n")
	for i, s := range texts {
		from := "document d.md"
		if strings.Contains(s, "_") {
			from = "graph fact from d.md"
		}
		fmt.Fprintf(&b, "<data n=\"%d\" from=\"%s\">\n%s\n</data>\n", i+1, from, s)
	}
	return b.String()
}

func answer(t *testing.T, task, user string) string {
	t.Helper()
	rp, ok := Reader(request(task, user))
	if !ok {
		t.Fatalf("%s: not answered", task)
	}
	return rp.Content
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
}

func TestReaderIgnoresOtherRequests(t *testing.T) {
	if _, ok := Reader(request("something else", "Question: x")); ok {
		t.Error("answered an unknown task")
	}
	if _, ok := Reader(llmtest.Request{Path: "/v1/embeddings", Input: []string{"x"}}); ok {
		t.Error("answered an embeddings request")
	}
}

func TestDecide(t *testing.T) {
	var d struct {
		Retrieve bool
		Queries  []string
	}
	decode(t, answer(t, "decide retrieval", "Question: How far is the Acme office in Lisbon from Munich?"), &d)
	if !d.Retrieve || strings.Join(d.Queries, "|") != "far office|Acme Lisbon Munich" {
		t.Errorf("decision %+v", d)
	}
	decode(t, answer(t, "decide retrieval", "Question: thanks!"), &d)
	if d.Retrieve {
		t.Errorf("retrieves for a thank-you: %+v", d)
	}
}

func TestGrade(t *testing.T) {
	user := "Question: Which engineers work for Acme?\nQueries asked so far:\n- Bolt Lisbon\n\nDocuments:\n" + sources(
		"Acme employs three engineers: Ann, Bo and Cy.",
		"Acme sells robots.",
		"Bolt is headquartered in Lisbon.",
	)
	var g struct {
		Documents []struct {
			N      int
			Useful bool
		}
		Hypothesis, Missing string
	}
	decode(t, answer(t, "grade documents", user), &g)
	var useful []int
	for _, v := range g.Documents {
		if v.Useful {
			useful = append(useful, v.N)
		}
	}
	if fmt.Sprint(useful) != "[1 3]" {
		t.Errorf("useful %v, want [1 3]: a name and a content word of the question, or most of a query", useful)
	}
	if !strings.Contains(g.Missing, "work") || !strings.Contains(g.Hypothesis, "still needed") {
		t.Errorf("hypothesis %q, missing %q: want the unmatched word named", g.Hypothesis, g.Missing)
	}
}

func TestComposeFollowsABridge(t *testing.T) {
	user := "Question: How far from Munich is the headquarters city of the company Acme acquired?\n\n" + sources(
		"Acme acquired Bolt, a start-up headquartered in Lisbon. Acme sells robots.",
		"Cities > Distances\n\n| city | distance from Munich |\n| --- | --- |\n| Paris | 684 km |\n| Lisbon | 1,964 km |",
	)
	got := answer(t, "answer from sources", user)
	want := "Acme acquired Bolt, a start-up headquartered in Lisbon [1]. city: Lisbon; distance from Munich: 1,964 km [2]."
	if !strings.HasPrefix(got, want) {
		t.Errorf("answer %q, want it to start %q", got, want)
	}
}

func TestComposeRefuses(t *testing.T) {
	tests := []struct{ name, question, source, want string }{
		{"a name in no source", "How much is due for a flight to Mars?", "A flight over 3,500 km is due 600 EUR.",
			"The sources do not answer this question: they do not mention Mars."},
		{"the name without what is asked", "What is Ann's home address?", "Ann is an engineer at Acme.",
			"The sources do not answer this question: they do not mention home, address."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := answer(t, "answer from sources", "Question: "+tc.question+"\n\n"+sources(tc.source)); got != tc.want {
				t.Errorf("answer %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAudit(t *testing.T) {
	src := sources("Acme is headquartered in Lisbon.", "Munich DISTANCE_FROM Lisbon (distance_km: 1964): distance from Munich to Lisbon is 1,964 km")
	q := "Question: How far from Munich is the city where Acme is headquartered?\n\n"
	tests := []struct {
		name, answer string
		grounded     string
		useful       bool
		critique     string
	}{
		{"grounded and useful", "Acme is headquartered in Lisbon [1]. Munich DISTANCE_FROM Lisbon (distance_km: 1964) [2].", "fully", true, ""},
		{"no distance", "Acme is headquartered in Lisbon [1].", "fully", false, "does not give the distance"},
		{"partly invented", "Acme is headquartered in Lisbon [1]. Lisbon is 2,000 km from Munich [2].", "partially", true, ""},
		{"invented", "Acme is headquartered in Porto, 2,000 km from Munich [1].", "not", true, ""},
		{"refusal", "The sources do not answer this question: they do not mention far.", "fully", false, "does not answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v struct {
				Grounded string
				Useful   bool
				Critique string
			}
			decode(t, answer(t, "audit answer", q+src+"\nDraft answer:\n<answer>\n"+tc.answer+"\n</answer>\n"), &v)
			if v.Grounded != tc.grounded || v.Useful != tc.useful || !strings.Contains(v.Critique, tc.critique) {
				t.Errorf("verdict %+v, want grounded %s, useful %v, critique with %q", v, tc.grounded, tc.useful, tc.critique)
			}
		})
	}
}

func TestPlanAsksForWhatIsMissing(t *testing.T) {
	user := "Question: How far from Munich is the city where Acme is headquartered?\nQueries already asked:\n" +
		"- How far from Munich is the city where Acme is headquartered?\n- far city headquartered\n" +
		"Critique of the last answer: The answer does not give the distance asked for.\n\nFound so far:\n" +
		sources("Acme is headquartered in Lisbon.")
	var sq struct{ Queries []string }
	decode(t, answer(t, "plan sub-questions", user), &sq)
	if len(sq.Queries) == 0 || sq.Queries[0] != "far Munich city" || !contains2(sq.Queries, "Lisbon Munich") {
		t.Errorf("queries %q: want the unfound words with the question's names, then the name the passage introduced", sq.Queries)
	}
}

func contains2(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestReranker(t *testing.T) {
	got, err := Reranker{}.Rerank(context.Background(), "Lisbon distance", []string{"Paris is near.", "Lisbon: 1,964 km distance", "Lisbon"})
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, s := range got {
		order = append(order, s.Index)
	}
	if fmt.Sprint(order) != "[1 2 0]" {
		t.Errorf("order %v, want [1 2 0]", order)
	}
}
