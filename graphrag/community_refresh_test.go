package graphrag_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// startRefresher runs a refresher of cs on env's ingester until the test ends.
func startRefresher(t *testing.T, env *testEnv, cs *graphrag.Communities, quiet, most time.Duration) *graphrag.CommunityRefresher {
	t.Helper()
	r := graphrag.NewCommunityRefresher(cs, nil).WithDelays(quiet, most)
	progress, stop := env.ingester.Subscribe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); r.Run(ctx, progress) }()
	t.Cleanup(func() { cancel(); stop(); <-done })
	waitRefreshes(t, r, 1)
	return r
}

// waitRefreshes waits until r has recomputed the communities n times, and returns the counts after it.
func waitRefreshes(t *testing.T, r *graphrag.CommunityRefresher, n int) graphrag.CommunityCounts {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs, counts := r.Refreshes()
		if runs >= n {
			return counts
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d recomputations of the communities, want %d", runs, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCommunityRefresherBatch: a hundred uploads at once recompute the communities once, after the last
// is read, and the communities then hold every document's names.
func TestCommunityRefresherBatch(t *testing.T) {
	env := newEnv(t)
	cs := graphrag.NewCommunities(env.store, nil, nil)
	// A quiet delay of a second: on a loaded machine (CI runs every package at once) a gap of 300 ms
	// between two of the hundred documents finishing is common, and would end the batch early.
	r := startRefresher(t, env, cs, time.Second, time.Minute)
	files := map[string]string{}
	for i := range 100 {
		tag := string(rune('a'+i/10)) + string(rune('a'+i%10))
		files[fmt.Sprintf("report-%03d.md", i)] = fmt.Sprintf("Acme%s works with Bolt%s in Carthage%s.\n", tag, tag, tag)
	}
	env.ingest(files)
	counts := waitRefreshes(t, r, 2)
	time.Sleep(2 * time.Second) // two quiet delays: any later recomputation would have run by now
	runs, _ := r.Refreshes()
	if runs != 2 {
		t.Errorf("%d recomputations for a batch of 100 uploads, want 1 after the start's", runs)
	}
	if counts.Communities < 100 {
		t.Errorf("counts %+v after 100 documents of their own names: want at least a community each", counts)
	}
	list, err := cs.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, c := range list {
		if slices.ContainsFunc(c.Entities, func(k string) bool { return strings.Contains(k, "jj") }) {
			found++
		}
	}
	if found != 1 {
		t.Errorf("the last document's names are in %d communities, want 1", found)
	}
}

// TestCommunityRefresherDelete: deleting a document recomputes the communities on its own, and exactly
// the communities the document was part of lose their summaries.
func TestCommunityRefresherDelete(t *testing.T) {
	env := newEnv(t, summaryModel)
	final := env.ingest(demoFiles(t))
	ctx := context.Background()
	cs := graphrag.NewCommunities(env.store, env.client, nil)
	r := startRefresher(t, env, cs, 50*time.Millisecond, time.Minute)
	plan, err := cs.Plan(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.Summarize(ctx, plan, nil); err != nil {
		t.Fatal(err)
	}
	before, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	links, err := env.store.GraphLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	part := parts(links)
	names := slices.Sorted(maps.Keys(final))
	gone := final[names[0]].DocID
	if err := env.ingester.Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	waitRefreshes(t, r, 2)
	after, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cites := func(c graphrag.Community) bool {
		return slices.ContainsFunc(c.ChunkIDs, func(id string) bool { return strings.HasPrefix(id, gone) })
	}
	touched, touchedParts := 0, map[string]bool{}
	for _, c := range before {
		if cites(c) {
			touched++
			touchedParts[part[c.Entities[0]]] = true
		}
	}
	if touched == 0 || len(touchedParts) == len(slices.Compact(slices.Sorted(maps.Values(part)))) {
		t.Fatalf("%d communities cite %s in %d parts of the graph: the test needs some that do and a part that does not", touched, names[0], len(touchedParts))
	}
	lost := 0
	for _, c := range after {
		if cites(c) {
			t.Errorf("community %v still cites deleted %s", c.Entities, names[0])
		}
		was := slices.IndexFunc(before, func(o graphrag.Community) bool { return o.ID == c.ID && o.Signature == c.Signature })
		if c.Summarized() != (was >= 0) {
			t.Errorf("community %v summarized %v, unchanged by the deletion %v", c.Entities, c.Summarized(), was >= 0)
		}
		if !c.Summarized() {
			lost++
		}
	}
	// A community in a part of the graph the document did not reach is still there with its summary.
	for _, c := range before {
		if part[c.Entities[0]] != "" && !touchedParts[part[c.Entities[0]]] &&
			!slices.ContainsFunc(after, func(a graphrag.Community) bool { return a.ID == c.ID && a.Summarized() }) {
			t.Errorf("community %v is in a part of the graph %s did not touch, but lost its summary", c.Entities, names[0])
		}
	}
	if lost == 0 {
		t.Errorf("no community lost its summary after deleting %s", names[0])
	}
}

// parts names each entity's connected part of the graph by one of its members.
func parts(links []graphrag.Link) map[string]string {
	up := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if p, ok := up[k]; ok && p != k {
			r := find(p)
			up[k] = r
			return r
		}
		up[k] = k
		return k
	}
	for _, l := range links {
		up[find(l.Source)] = find(l.Target)
	}
	out := map[string]string{}
	for k := range up {
		out[k] = find(k)
	}
	return out
}

// TestCommunityRefresherRewritesChangedSummaries: when a document changes a community that had a summary,
// the refresher writes that summary again on its own, in a run whose calls are planned and shown; the
// communities nobody asked a summary of stay without one.
func TestCommunityRefresherRewritesChangedSummaries(t *testing.T) {
	env, cs := demoCommunities(t, summaryModel)
	ctx := context.Background()
	job := graphrag.NewSummaryJob(ctx, cs)
	if _, err := job.Start(2); err != nil {
		t.Fatal(err)
	}
	if err := job.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	before, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// a document that relates two members of a summarized community again, from a new passage
	i := slices.IndexFunc(before, func(c graphrag.Community) bool { return c.Summarized() && len(c.Entities) >= 2 })
	if i < 0 {
		t.Fatalf("no summarized community of two members among %d", len(before))
	}
	members, err := env.store.Entities(ctx, before[i].Entities)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range members {
		if one := strings.Fields(e.Name); len(one) == 1 && one[0][0] >= 'A' && one[0][0] <= 'Z' {
			names = append(names, e.Name)
		}
	}
	if len(names) < 2 {
		t.Fatalf("community %v has fewer than two one-word names to write a passage with", before[i].Entities)
	}
	calls := summaryCalls(env.model)

	r := graphrag.NewCommunityRefresher(cs, nil).WithDelays(50*time.Millisecond, time.Minute).WithResummaries(job, 10)
	progress, stop := env.ingester.Subscribe()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); r.Run(runCtx, progress) }()
	t.Cleanup(func() { cancel(); stop(); <-done })
	waitRefreshes(t, r, 1)
	env.ingest(map[string]string{"update.md": "# Update\n\n" + names[0] + " now works closely with " + names[1] + ".\n"})
	counts := waitRefreshes(t, r, 2)
	deadline := time.Now().Add(20 * time.Second)
	for !job.State().Lapsed || job.State().Running {
		if time.Now().After(deadline) {
			t.Fatalf("no summaries were rewritten after the change (counts %+v, state %+v)", counts, job.State())
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := job.State()
	after, err := cs.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Plan.Calls == 0 || st.Plan.Tokens() == 0 || st.Progress.Done != st.Plan.Calls || st.Err != "" {
		t.Errorf("automatic run %+v: want its calls and tokens planned and every one done", st)
	}
	if got := summaryCalls(env.model) - calls; got != st.Plan.Calls {
		t.Errorf("%d summary calls after the change, the run planned %d", got, st.Plan.Calls)
	}
	for _, c := range after {
		kept := slices.ContainsFunc(before, func(o graphrag.Community) bool { return o.ID == c.ID && o.Signature == c.Signature && o.Summarized() })
		// a community that took the place of a summarized one was rewritten (Successors now sees it
		// summarized, so ask whether the one it replaced was)
		replaced := slices.ContainsFunc(before, func(o graphrag.Community) bool {
			return o.Summarized() && !(o.ID == c.ID && o.Signature == c.Signature) && graphrag.Successors([]graphrag.Community{o},
				[]graphrag.Community{{ID: c.ID, Entities: c.Entities}})[c.ID]
		})
		if c.Summarized() != (kept || replaced) {
			t.Errorf("community %v summarized %v; it kept a summary %v, took the place of a summarized one %v", c.Entities, c.Summarized(), kept, replaced)
		}
	}
	if n, _ := cs.Counts(ctx); n.Lapsed != 0 {
		t.Errorf("counts %+v after the rewrite: want none lapsed", n)
	}
}

// demoCommunities ingests the demo with a model answering as model does and computes its communities.
func demoCommunities(t *testing.T, model func(llmtest.Request) (llmtest.Reply, bool)) (*testEnv, *graphrag.Communities) {
	t.Helper()
	env := newEnv(t, model)
	env.ingest(demoFiles(t))
	cs := graphrag.NewCommunities(env.store, env.client, nil)
	if _, err := cs.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	return env, cs
}
