package eval_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag"
)

// TestCollectionQuestionsEval runs the whole-collection questions (testdata/collection_questions.jsonl)
// over the ingested demo corpus, naive and advanced, with the scripted reader model; the advanced loop may
// answer from community summaries, written first by the same reader. It logs the tables, the one-time
// cost of the summaries and the cost of each question, and fails when a run fails, the loop answers fewer
// questions than the baseline, or a run goes over its call cap.
func TestCollectionQuestionsEval(t *testing.T) {
	set, err := eval.LoadSet("testdata/collection_questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(set) < 10 {
		t.Fatalf("%d whole-collection questions, want at least 10", len(set))
	}
	_, client := readerModel(t)
	store := demoStore(t, client)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	communities := graphrag.NewCommunities(store, client, nil)
	counts, err := communities.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := communities.Plan(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	done, err := communities.Summarize(ctx, plan, nil)
	if err != nil || done.Failed > 0 || done.Done != plan.Calls {
		t.Fatalf("summaries: %+v, %v; want all %d written", done, err, plan.Calls)
	}
	t.Logf("community summaries: %d communities, estimated %d calls and %d tokens (at most), used %d calls and %d tokens",
		counts.Communities, plan.Calls, plan.Tokens(), done.Calls, done.Tokens)

	retriever := graphrag.NewRetriever(store, client)
	pipelines, err := eval.ParsePipelines("naive,advanced", agent.DefaultTechniques())
	if err != nil {
		t.Fatal(err)
	}
	r := &eval.Runner{
		Agent: func(tq agent.Techniques) *agent.Agent {
			return agent.New(client, retriever, nil, evaltest.Reranker{}, agent.Config{MaxLLMCalls: maxCalls, Techniques: tq}, nil).
				WithCollection(store)
		},
		Retriever: retriever,
		Workers:   4,
	}
	outcomes, err := r.Run(ctx, set, pipelines)
	if err != nil {
		t.Fatal(err)
	}
	var tables strings.Builder
	if err := eval.WriteTables(&tables, outcomes); err != nil {
		t.Fatal(err)
	}
	var cost strings.Builder
	cost.WriteString("| pipeline | question | correct | model calls | prompt tokens | completion tokens |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, o := range outcomes {
		fmt.Fprintf(&cost, "| %s | %s | %v | %d | %d | %d |\n", o.Pipeline, o.ID, o.Correct, o.Calls, o.PromptTokens, o.CompletionTokens)
		if testing.Verbose() {
			t.Logf("%-8s %s correct=%v answer=%q", o.Pipeline, o.ID, o.Correct, clip(o.Answer, 300))
		}
		if o.Error != "" {
			t.Errorf("%s %s: %s", o.Pipeline, o.ID, o.Error)
		}
		if o.Calls > maxCalls {
			t.Errorf("%s %s: %d model calls, over the cap of %d", o.Pipeline, o.ID, o.Calls, maxCalls)
		}
	}
	t.Logf("whole-collection questions, scripted reader model:\n\n%s\n%s", tables.String(), cost.String())
	sums := eval.Summarize(outcomes)
	naive, _ := eval.Find(sums, eval.Naive, "collection")
	advanced, _ := eval.Find(sums, eval.Advanced, "collection")
	if advanced.N != len(set) || advanced.Correct < naive.Correct {
		t.Errorf("collection: advanced answered %d of %d, naive %d: the loop must not do worse than the baseline",
			advanced.Correct, advanced.N, naive.Correct)
	}
}
