package eval_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// twoHopBench is a small multi-hop benchmark: each question names a band whose passage names the
// guitarist, and the answer sits in the guitarist's passage, which shares no word with the question;
// six passages about other albums of the label crowd the question's own search.
func twoHopBench() *eval.Bench {
	b := &eval.Bench{Name: "two-hop"}
	add := func(file, title, text string) {
		b.Passages = append(b.Passages, eval.BenchPassage{Idx: len(b.Passages), Title: title, Text: text, File: file})
	}
	add("band.md", "Quillfeather", "Quillfeather is a band on the Harrow label. Its guitarist is Zorbax Menlo.")
	add("zorbax.md", "Zorbax Menlo", "Zorbax Menlo was born in Tarnwick, a mill town, and studied music at its conservatory.")
	add("band2.md", "Ostrel", "Ostrel is a band on the Harrow label. Its drummer is Pellam Vey.")
	add("pellam.md", "Pellam Vey", "Pellam Vey was raised in Dunmere beside the river.")
	for i := range 6 {
		add(fmt.Sprintf("album%d.md", i), fmt.Sprintf("Harrow album %d", i),
			fmt.Sprintf("The Harrow label band released album %d; the band toured where the label grew.", i))
	}
	q := func(id, text string, gold ...string) eval.BenchQuestion {
		var bq eval.BenchQuestion
		bq.ID, bq.Question.Question, bq.Category, bq.GoldDocs = id, text, "2hop", gold
		return bq
	}
	b.Questions = []eval.BenchQuestion{
		q("q1", "Where did the guitarist of the Harrow label band Quillfeather grow up?", "band.md", "zorbax.md"),
		q("q2", "Where was the drummer of the Harrow label band Ostrel raised?", "band2.md", "pellam.md"),
	}
	return b
}

// The benchmark's row of the agent's sub-questions: the local loop's own answer call writes them (its
// first pass's searches, the run stopped there: one model call a question), they are recorded in a file
// that a second run reads without the model, a file missing questions is completed, and they are searched
// with the question as the gold sub-questions are, so the passage only a sub-question names is found.
func TestBenchRecordsAndSearchesTheAgentsSubQuestions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := llmtest.New(t)
	srv.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		if !strings.Contains(req.System(), "Task: compact answer") {
			return llmtest.Reply{}, false
		}
		search := []string{"Zorbax Menlo"} // the name the band's passage gives, as a small model asks for it
		if strings.Contains(req.LastUser(), "Ostrel") {
			search = []string{} // gives up without a search: the loop ends with "not found"
		}
		out, _ := json.Marshal(map[string]any{"facts": []string{}, "reasoning": "The guitarist's home town is missing.",
			"answerable": false, "answer": "", "search": search})
		return llmtest.Reply{Content: string(out)}, true
	})
	client := evaltest.Client(srv)
	b := twoHopBench()
	quiet := slog.New(slog.DiscardHandler)
	r := graphrag.NewRetriever(benchStore(ctx, t, b, dimmed{client, 64}, "test-embed"), client)
	ag := agent.New(client, r, nil, nil, agent.Config{Profile: agent.ProfileLocal}, quiet)
	ask := func(ctx context.Context, q string) (eval.AgentQueries, error) { return eval.LoopQueries(ctx, ag, q) }

	path := filepath.Join(t.TempDir(), "agent-queries.jsonl")
	var seen []string
	got, err := eval.RecordAgentQueries(ctx, b, path, ask, func(_, _ int, q eval.AgentQueries) { seen = append(seen, q.ID) })
	if err != nil {
		t.Fatal(err)
	}
	if q1 := got["q1"]; !slices.Equal(q1.Queries, []string{"Zorbax Menlo"}) || q1.Outcome != eval.OutcomeSearches {
		t.Errorf("q1: %+v, want the search the answer call asked for, the run stopped there", q1)
	}
	if q2 := got["q2"]; len(q2.Queries) != 0 || q2.Outcome != eval.OutcomeNotFound {
		t.Errorf("q2: %+v, want no search and the loop's refusal", q2)
	}
	if calls := srv.ChatCalls(); calls != 2 || !slices.Equal(seen, []string{"q1", "q2"}) {
		t.Errorf("%d chat calls for questions %v, want one answer call each", calls, seen)
	}

	// Read back without a model; then with a line lost, only that question is asked again.
	again, err := eval.RecordAgentQueries(ctx, b, path, nil, nil)
	if err != nil || !slices.Equal(again["q1"].Queries, got["q1"].Queries) || len(again) != 2 {
		t.Fatalf("read back %+v, %v", again, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	if err := os.WriteFile(path, []byte(lines[1]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := eval.RecordAgentQueries(ctx, b, path, nil, nil); err == nil || !strings.Contains(err.Error(), "lacks the agent's queries of 1 questions") {
		t.Errorf("a file missing a question, no model: err %v", err)
	}
	seen = nil
	if again, err = eval.RecordAgentQueries(ctx, b, path, ask, func(_, _ int, q eval.AgentQueries) { seen = append(seen, q.ID) }); err != nil ||
		!slices.Equal(seen, []string{"q1"}) || !slices.Equal(again["q1"].Queries, got["q1"].Queries) {
		t.Errorf("completing the file asked %v, got %+v, %v", seen, again, err)
	}
	if _, err := eval.RecordAgentQueries(ctx, b, path, nil, nil); err != nil {
		t.Errorf("the completed file: %v", err)
	}

	results, err := eval.BenchRecall(ctx, r, b, []int{2, 5}, got)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]eval.BenchResult{}
	var methods []string
	for _, res := range results {
		by[res.Method] = res
		methods = append(methods, res.Method)
	}
	if want := []string{eval.MethodAgentSubQuery, eval.MethodGoldSubQuery}; !slices.Equal(methods[len(methods)-2:], want) {
		t.Fatalf("methods %v, want the agent's sub-questions before the gold ones", methods)
	}
	own, alone := by[eval.MethodAgentSubQuery].Questions, by[eval.MethodHybridGraph].Questions
	if !slices.Contains(own[0].Documents, "zorbax.md") || slices.Contains(alone[0].Documents, "zorbax.md") {
		t.Errorf("q1: with the agent's sub-question %v, alone %v: want the guitarist's passage found only with it", own[0].Documents, alone[0].Documents)
	}
	if !slices.Equal(own[1].Documents, alone[1].Documents) {
		t.Errorf("q2 without sub-questions: %v, want the question's own %v", own[1].Documents, alone[1].Documents)
	}
}
