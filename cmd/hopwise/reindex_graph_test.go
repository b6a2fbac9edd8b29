package main

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// reextractState reads the re-extraction recorded in the store the binary used.
func reextractState(t *testing.T, backend, dataDir string) graphrag.ReextractState {
	t.Helper()
	s := openBackend(t, backend, dataDir)
	defer s.Close()
	st, err := s.ReextractState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// relationsBySecond counts the relations of the store the binary used, and those the second model wrote.
func relationsBySecond(t *testing.T, backend, dataDir string) (all, bySecond int) {
	t.Helper()
	s := openBackend(t, backend, dataDir)
	defer s.Close()
	links, err := s.GraphLinks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range links {
		keys = append(keys, l.Source, l.Target)
	}
	edges, err := s.Neighborhood(t.Context(), graphrag.SortedUnion(keys), 1, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		if graphragtest.IsSecond(e.Description) {
			bySecond++
		}
	}
	return len(edges), bySecond
}

// TestReindexGraphSurvivesKill9 ingests the sample documents with one chat model, then kills `hopwise
// reindex --graph` with a second model (each extraction 400 ms) with SIGKILL three times, each at a random
// moment after it reported more passages extracted again than the run before: each kill leaves the old
// graph answering, whole, with what was staged kept and `hopwise status` saying the re-extraction is under
// way; the next run goes on from there (it asks the model for fewer passages than a whole re-extraction).
// The last run ends with every relation the second model's and the documents' counts those of before (the
// second model finds the same graph, described otherwise). Entity resolution is on (the default), as in
// TestIngestSurvivesKill9: its merges do not depend on the order passages are resolved in, and one
// decided on a passage extracted after a kill reaches those staged before it (graphrag.StagedEditRules).
func TestReindexGraphSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	for _, backend := range reindexBackends(t) {
		t.Run(backend, func(t *testing.T) {
			if backend == "neo4j" {
				if err := graphragtest.WipeNeo4j(t.Context(), os.Getenv("NEO4J_URI")); err != nil {
					t.Fatal(err)
				}
			}
			first := llmtest.New(t, llmtest.WithEmbedDim(64))
			first.Handle(graphragtest.Extraction)
			second := llmtest.New(t, llmtest.WithEmbedDim(64))
			second.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
				r, ok := graphragtest.SecondExtraction(req)
				r.Delay = 400 * time.Millisecond
				return r, ok
			})
			data := t.TempDir()
			cmdWith := func(ctx context.Context, modelURL string, args ...string) *exec.Cmd {
				cmd := reindexCmd(ctx, bin, backend, data, modelURL, "", args...)
				cmd.Env = append(cmd.Env, "ENTITY_RESOLUTION=true") // whatever the caller's environment says
				return cmd
			}
			if out, err := cmdWith(t.Context(), first.URL(), "ingest", demoDir).CombinedOutput(); err != nil {
				t.Fatalf("ingest: %v\n%s", err, out)
			}
			before := countsOn(t, backend, data)
			if all, bySecond := relationsBySecond(t, backend, data); all == 0 || bySecond != 0 {
				t.Fatalf("after the ingest %d relations, %d of the second model", all, bySecond)
			}

			rng := rand.New(rand.NewPCG(7, 11))
			staged, passages := 0, 0
			for kill := 1; kill <= 3; kill++ {
				calls := second.ChatCalls()
				killReindexAt(t, cmdWith(context.Background(), second.URL(), "reindex", "--graph"), graphrag.StepGraph,
					staged, time.Duration(rng.IntN(600))*time.Millisecond)
				st := reextractState(t, backend, data)
				t.Logf("kill %d: %d of %d passages staged, %d extraction calls in that run", kill, st.Staged, st.Chunks, second.ChatCalls()-calls)
				if st.Model != "test" || st.Staged <= staged || st.Staged >= st.Chunks {
					t.Fatalf("after kill %d: %+v; want a re-extraction with test staged, more than before (%d) but not all", kill, st, staged)
				}
				if all, bySecond := relationsBySecond(t, backend, data); all == 0 || bySecond != 0 {
					t.Fatalf("after kill %d the graph has %d relations, %d of the second model; want the old graph whole", kill, all, bySecond)
				}
				staged, passages = st.Staged, st.Chunks
			}

			if out, _ := cmdWith(t.Context(), second.URL(), "status").CombinedOutput(); !strings.Contains(string(out), "FAILING") ||
				!strings.Contains(string(out), `a re-extraction of the graph with "test" is under way`) {
				t.Errorf("hopwise status after the kills:\n%s\nwant the search index failing with the re-extraction under way", out)
			}

			calls := second.ChatCalls()
			out, err := cmdWith(t.Context(), second.URL(), "reindex", "--graph").CombinedOutput()
			if err != nil {
				t.Fatalf("reindex --graph after the kills: %v\n%s", err, out)
			}
			if last := second.ChatCalls() - calls; last != passages-staged {
				t.Errorf("the last run asked the model %d times, want %d: the %d passages not staged by the killed runs", last, passages-staged, passages-staged)
			}
			if !strings.Contains(string(out), "re-extracted the graph of") {
				t.Errorf("reindex --graph printed:\n%s", out)
			}
			if got := countsOn(t, backend, data); !sameCounts(got, before) {
				t.Errorf("documents after the re-extraction %+v, before %+v", got, before)
			}
			if all, bySecond := relationsBySecond(t, backend, data); all == 0 || bySecond != all {
				t.Errorf("after the re-extraction %d relations, %d of the second model; want all", all, bySecond)
			}
			if st := reextractState(t, backend, data); st.Model != "" || st.Staged != 0 {
				t.Errorf("re-extraction state after = %+v, want none under way", st)
			}
			if backend == "sqlite" {
				checkSQLiteFile(t, filepath.Join(data, "hopwise.db"))
			}
		})
	}
}
