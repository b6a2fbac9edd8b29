package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/neo4j"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// reindexBackends are the stores the re-index binary tests run on: SQLite in the data directory, and
// the Neo4j of NEO4J_URI when set (wiped first).
func reindexBackends(t *testing.T) []string {
	backends := []string{"sqlite"}
	if os.Getenv("NEO4J_URI") != "" {
		graphragtest.LockNeo4jFor(t) // other packages' tests wipe it too
		backends = append(backends, "neo4j")
	} else {
		t.Log("NEO4J_URI is not set: SQLite only (make neo4j, then NEO4J_URI=bolt://127.0.0.1:7687)")
	}
	return backends
}

// reindexEnv runs the binary on backend: the chat model and the old embedding model (64 dimensions) at
// old, and, when newURL is set, the new embedding model new-embed (32 dimensions) there.
func reindexCmd(ctx context.Context, bin, backend, dataDir, old, newURL string, args ...string) *exec.Cmd {
	cmd := hopwiseCmd(ctx, bin, dataDir, old, args...)
	if backend == "neo4j" {
		cmd.Env = append(cmd.Env, "NEO4J_URI="+os.Getenv("NEO4J_URI"))
	}
	if newURL != "" {
		cmd.Env = append(cmd.Env, "EMBED_BASE_URL="+newURL, "EMBED_MODEL=new-embed", "EMBED_DIM=32")
	}
	return cmd
}

// openBackend opens the store the binary used, with the dimension it recorded.
func openBackend(t *testing.T, backend, dataDir string) graphrag.Store {
	t.Helper()
	var s graphrag.Store
	var err error
	if backend == "neo4j" {
		s, err = neo4j.Open(t.Context(), os.Getenv("NEO4J_URI"), os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"),
			neo4j.Options{Database: os.Getenv("NEO4J_DATABASE")}, nil)
	} else {
		s, err = sqlite.Open(t.Context(), filepath.Join(dataDir, "hopwise.db"), sqlite.Options{}, nil)
	}
	if err != nil {
		t.Fatalf("open the %s store: %v", backend, err)
	}
	return s
}

// countsOn reads the documents' counts from the store the binary used.
func countsOn(t *testing.T, backend, dataDir string) map[string]docCounts {
	t.Helper()
	s := openBackend(t, backend, dataDir)
	defer s.Close()
	docs, err := s.Documents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return countsByName(docs)
}

func reembedState(t *testing.T, backend, dataDir string) graphrag.ReembedState {
	t.Helper()
	s := openBackend(t, backend, dataDir)
	defer s.Close()
	st, err := s.ReembedState(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestReindexSurvivesKill9 ingests the sample documents with a 64-dimension model, configures a
// 32-dimension one (which `hopwise ask` now refuses, naming `hopwise reindex --embeddings`), then kills
// `hopwise reindex` with SIGKILL three times, each at a random moment after it reported more done than
// the run before (each embedding call takes 1.2 s): `hopwise status` then says a re-index is under way; each
// kill leaves the old index answering with what was staged kept, and the next run goes on from there
// (it embeds fewer passages than a whole re-index). The last run ends with every passage nearest to its
// own text's new vector, the store in the new model's space, and the documents' counts unchanged.
func TestReindexSurvivesKill9(t *testing.T) {
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
			old := llmtest.New(t, llmtest.WithEmbedDim(64))
			old.Handle(graphragtest.Extraction)
			next := llmtest.New(t, llmtest.WithEmbedDim(32))
			next.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
				return llmtest.Reply{Delay: 1200 * time.Millisecond}, req.IsEmbed()
			})
			data := t.TempDir()
			if out, err := reindexCmd(t.Context(), bin, backend, data, old.URL(), "", "ingest", demoDir).CombinedOutput(); err != nil {
				t.Fatalf("ingest: %v\n%s", err, out)
			}
			before := countsOn(t, backend, data)
			start := reembedState(t, backend, data)
			items := start.Chunks + start.Relations

			out, err := reindexCmd(t.Context(), bin, backend, data, old.URL(), next.URL(), "ask", "How far is Delhi from Munich?").CombinedOutput()
			if err == nil || !strings.Contains(string(out), "hopwise reindex --embeddings") {
				t.Errorf("hopwise ask with the new model = %v:\n%s\nwant a refusal naming hopwise reindex --embeddings", err, out)
			}

			rng := rand.New(rand.NewPCG(3, 5))
			staged := 0
			for kill := 1; kill <= 3; kill++ {
				calls := next.EmbedCalls()
				killReindexMidway(t, reindexCmd(context.Background(), bin, backend, data, old.URL(), next.URL(), "reindex", "--embeddings"),
					staged, time.Duration(rng.IntN(500))*time.Millisecond)
				st := reembedState(t, backend, data)
				done := st.ChunksStaged + st.RelationsStaged
				t.Logf("kill %d: %d of %d passages and facts staged, %d embedding calls in that run", kill, done, items, next.EmbedCalls()-calls)
				if st.Active.Dim != 64 || st.Target.Dim != 32 || done <= staged || done >= items {
					t.Fatalf("after kill %d: %+v; want the old space searched, the new one staged, more than before (%d) but not all", kill, st, staged)
				}
				staged = done
			}

			status := reindexCmd(t.Context(), bin, backend, data, old.URL(), next.URL(), "status")
			status.Env = append(status.Env, "EMBED_DIM=")
			if out, _ := status.CombinedOutput(); !strings.Contains(string(out), "search index") ||
				!strings.Contains(string(out), "FAILING") || !strings.Contains(string(out), "a re-index to \"new-embed\" is under way") {
				t.Errorf("hopwise status after the kills:\n%s\nwant the search index failing with the re-index under way", out)
			}

			calls := next.EmbedCalls()
			out, err = reindexCmd(t.Context(), bin, backend, data, old.URL(), next.URL(), "reindex").CombinedOutput()
			if err != nil {
				t.Fatalf("reindex after the kills: %v\n%s", err, out)
			}
			last := next.EmbedCalls() - calls
			if whole := (items + 31) / 32; last >= whole {
				t.Errorf("the last run made %d embedding calls, a whole re-index of %d items needs %d: it did not resume", last, items, whole)
			}
			if !strings.Contains(string(out), "re-embedded") || !strings.Contains(string(out), `"new-embed" (32 dimensions)`) {
				t.Errorf("reindex printed:\n%s", out)
			}
			if got := countsOn(t, backend, data); !sameCounts(got, before) {
				t.Errorf("documents after the re-index %+v, before %+v", got, before)
			}
			s := openBackend(t, backend, data)
			defer s.Close()
			if sp := s.EmbeddingSpace(); sp != (graphrag.EmbeddingSpace{Model: "new-embed", Dim: 32}) {
				t.Errorf("store space after the re-index = %+v", sp)
			}
			if missing, err := graphragtest.NotReembedded(t.Context(), s, 32); err != nil || len(missing) > 0 {
				t.Errorf("passages not re-embedded: %v, %v", missing, err)
			}
			if backend == "sqlite" {
				checkSQLiteFile(t, filepath.Join(data, "hopwise.db"))
			}
		})
	}
}

// killReindexMidway starts cmd and kills it with SIGKILL a time after after the first progress line that
// reports more than beyond passages and facts done.
func killReindexMidway(t *testing.T, cmd *exec.Cmd, beyond int, after time.Duration) {
	t.Helper()
	killReindexAt(t, cmd, graphrag.StepEmbeddings, beyond, after)
}

// killReindexAt starts cmd and kills it with SIGKILL a time after after the first progress line of step
// that reports more than beyond done.
func killReindexAt(t *testing.T, cmd *exec.Cmd, step string, beyond int, after time.Duration) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	progress := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			var done, total int
			if _, err := fmt.Sscanf(strings.TrimSpace(sc.Text()), step+": %d/%d", &done, &total); err == nil && done > beyond && !seen {
				seen = true
				close(progress)
			}
		}
	}()
	select {
	case <-progress:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("reindex printed no progress beyond %d within a minute", beyond)
	}
	time.Sleep(after)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

func sameCounts(a, b map[string]docCounts) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
