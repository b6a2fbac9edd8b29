package graphrag_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// summaryModel answers summary requests with the first name the prompt lists as title.
func summaryModel(req llmtest.Request) (llmtest.Reply, bool) {
	if !strings.HasPrefix(req.System(), "Task: summarize community.") {
		return llmtest.Reply{}, false
	}
	names, _, _ := strings.Cut(strings.TrimPrefix(req.LastUser(), "Names:\n- "), "\n")
	b, _ := json.Marshal(map[string]string{"title": "About " + names, "summary": "A group around " + names + "."})
	return llmtest.Reply{Content: string(b)}, true
}

func summaryCalls(srv *llmtest.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.System(), "Task: summarize community.") {
			n++
		}
	}
	return n
}

// TestCommunitySummaries: communities of the ingested demo, summaries written for as many as asked with the
// estimate known first and progress after each, kept when nothing changed, and rewritten only for the
// communities a deleted document was part of.
func TestCommunitySummaries(t *testing.T) {
	env := newEnv(t, summaryModel)
	final := env.ingest(demoFiles(t))
	ctx := context.Background()
	cs := graphrag.NewCommunities(env.store, env.client, nil)
	counts, err := cs.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Communities < 4 || counts.Summarized != 0 {
		t.Fatalf("counts %+v: want several communities of the demo and no summary yet", counts)
	}
	plan, err := cs.Plan(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Calls != 3 || plan.Left != counts.Communities-3 || plan.PromptTokens < 3*50 || plan.MaxCompletionTokens != 3*graphrag.SummaryMaxTokens {
		t.Fatalf("plan %+v: want 3 calls, %d left, prompt tokens estimated", plan, counts.Communities-3)
	}
	if n := summaryCalls(env.model); n != 0 {
		t.Fatalf("planning made %d model calls", n)
	}
	var seen []graphrag.SummaryProgress
	st, err := cs.Summarize(ctx, plan, func(p graphrag.SummaryProgress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Done != 3 || st.Failed != 0 || st.Calls != 3 || st.Tokens <= 0 || summaryCalls(env.model) != 3 {
		t.Errorf("final progress %+v, %d summary calls: want 3 done in 3 calls with tokens counted", st, summaryCalls(env.model))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done < seen[i-1].Done || seen[i].Total != 3 {
			t.Errorf("progress went %+v -> %+v", seen[i-1], seen[i])
		}
	}
	before, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	summarized := slices.DeleteFunc(slices.Clone(before), func(c graphrag.Community) bool { return !c.Summarized() })
	if len(summarized) != 3 || !strings.HasPrefix(summarized[0].Title, "About ") || summarized[0].ID != before[0].ID {
		t.Fatalf("summarized %+v: want the 3 heaviest communities with their titles", summarized)
	}
	if counts, _ := cs.Refresh(ctx); counts.Summarized != 3 {
		t.Errorf("after recomputing with nothing changed: %+v, want the 3 summaries kept", counts)
	}

	// Delete a document that the heaviest summarised community draws on (the first in name order).
	names := slices.Sorted(maps.Keys(final))
	var gone string
	for _, name := range names {
		if slices.ContainsFunc(summarized[0].ChunkIDs, func(id string) bool { return strings.HasPrefix(id, final[name].DocID) }) {
			gone = name
			break
		}
	}
	if gone == "" {
		t.Fatalf("no document found for the chunks %v", summarized[0].ChunkIDs)
	}
	if err := env.ingester.Delete(ctx, final[gone].DocID); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// A community keeps its summary exactly when it came out of the recomputation the same (ID and
	// signature); one that drew on the deleted document cannot have. (That a part of the graph the deletion
	// did not reach keeps its communities is TestDetectCommunities'.)
	stillSummarized := 0
	for _, c := range after {
		old := slices.IndexFunc(summarized, func(o graphrag.Community) bool { return o.ID == c.ID && o.Signature == c.Signature })
		if c.Summarized() != (old >= 0) {
			t.Errorf("community %v: summarized %v, but it was the same as a summarised one before: %v", c.Entities, c.Summarized(), old >= 0)
		}
		if c.Summarized() {
			stillSummarized++
		}
		if slices.ContainsFunc(c.ChunkIDs, func(id string) bool { return strings.HasPrefix(id, final[gone].DocID) }) {
			t.Errorf("community %v still cites a passage of deleted %s", c.Entities, gone)
		}
	}
	if i := slices.IndexFunc(after, func(c graphrag.Community) bool { return c.ID == summarized[0].ID && c.Summarized() }); i >= 0 {
		t.Errorf("community %v drew on deleted %s but kept its summary", summarized[0].Entities, gone)
	}
	plan, err = cs.Plan(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Calls != len(after)-stillSummarized {
		t.Errorf("plan after the deletion: %d calls, want one for each of the %d communities without a summary", plan.Calls, len(after)-stillSummarized)
	}
}
