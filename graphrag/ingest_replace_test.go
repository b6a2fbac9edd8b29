package graphrag_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/llm/llmtest"
)

const policyV1 = `# Travel policy

## Flights

Lena Vogt books flights with Lufthansa from Munich Airport. Economy class applies below six hours.

## Hotels

Arjun Mehta approves hotels in Delhi up to 120 EUR a night through the Hotel Portal.

## Meals

Priya Raman reimburses meals in Lisbon at 40 EUR a day.
`

// policyV2 changes the hotels section only: Arjun Mehta and Delhi go, Sofia Duarte and Porto come.
var policyV2 = strings.Replace(policyV1,
	"Arjun Mehta approves hotels in Delhi up to 120 EUR a night through the Hotel Portal.",
	"Sofia Duarte approves hotels in Porto up to 110 EUR a night through the Hotel Portal.", 1)

// waitFinished waits until no document is being worked on.
func (e *testEnv) waitFinished() []graphrag.Document {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		docs, err := e.store.Documents(context.Background())
		if err != nil {
			e.t.Fatal(err)
		}
		busy := false
		for _, d := range docs {
			busy = busy || !d.Status.Finished()
		}
		if !busy {
			return docs
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("documents not finished: %+v", docs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// freshStats is the store's counts after a fresh ingest of version 2 into an empty store from open. It
// runs in a subtest of its own, before the test opens its store: on Neo4j each store from open wipes the
// one database and holds its lock until the (sub)test ends.
func freshStats(t *testing.T, open func(*testing.T, int, string) graphrag.Store, opt graphrag.IngestOptions) graphrag.Stats {
	var fresh graphrag.Stats
	t.Run("fresh ingest of version 2", func(t *testing.T) {
		env := newEnvOn(t, open(t, 64, "test-embed"), opt)
		if p := env.ingest(map[string]string{"policy.md": policyV2})["policy.md"]; p.Status != graphrag.StatusDone {
			t.Fatalf("fresh ingest of version 2: %+v", p)
		}
		fresh = env.stats()
	})
	return fresh
}

// TestReplaceSwapsVersionsAndReusesUnchangedPassages, on SQLite and, with NEO4J_URI, on Neo4j.
func TestReplaceSwapsVersionsAndReusesUnchangedPassages(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) { testReplaceSwapsVersions(t, open) })
	}
}

func testReplaceSwapsVersions(t *testing.T, open func(*testing.T, int, string) graphrag.Store) {
	opt := graphrag.IngestOptions{Workers: 2, MaxTokens: 40}
	fresh := freshStats(t, open, opt)
	env := newEnvOn(t, open(t, 64, "test-embed"), opt)
	ctx := context.Background()
	v1 := env.ingest(map[string]string{"policy.md": policyV1})["policy.md"]
	old, err := env.store.Document(ctx, v1.DocID)
	if err != nil || old.Status != graphrag.StatusDone || old.Chunks < 3 {
		t.Fatalf("version 1: %+v, %v; want done in 3 or more passages", old, err)
	}
	sent := len(env.model.Requests())

	doc, dup, err := env.ingester.SubmitReplacing(ctx, "policy.md", "", strings.NewReader(policyV2))
	if err != nil || dup || doc.Replaces != old.ID {
		t.Fatalf("SubmitReplacing = %+v, dup %v, %v; want a new document replacing %s", doc, dup, err, old.ID)
	}
	docs := env.waitFinished()
	if len(docs) != 1 || docs[0].ID != doc.ID || docs[0].Status != graphrag.StatusDone || docs[0].Replaces != "" {
		t.Fatalf("after the replace: %+v; want only the new version, done", docs)
	}
	if _, err := env.store.Document(ctx, old.ID); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("old version: %v, want ErrNotFound", err)
	}

	// Only the changed passage was embedded and extracted again.
	var chats, embedded int
	for _, r := range env.model.Requests()[sent:] {
		if r.IsEmbed() {
			for _, in := range r.Input {
				if strings.Contains(in, "Lena Vogt books") || strings.Contains(in, "Priya Raman reimburses") {
					t.Errorf("an unchanged passage was embedded again: %.60q", in)
				}
				if strings.Contains(in, "Sofia Duarte approves") {
					embedded++
				}
			}
			continue
		}
		chats++
		if !strings.Contains(r.LastUser(), "Sofia Duarte") {
			t.Errorf("a chat request about another passage than the changed one: %.80q", r.LastUser())
		}
	}
	if chats != 1 || embedded != 1 {
		t.Errorf("replace sent %d chat requests and embedded the changed passage %d times; want 1 and 1", chats, embedded)
	}

	for _, q := range []string{"Arjun Mehta", "Delhi"} {
		if found, err := env.store.SearchText(ctx, q, 5); err != nil || len(found) != 0 {
			t.Errorf("SearchText(%q) after the replace = %d results, %v; want none", q, len(found), err)
		}
		if es, err := env.store.SearchEntities(ctx, q, 5); err != nil || len(es) != 0 {
			t.Errorf("SearchEntities(%q) after the replace = %v, %v; want none", q, es, err)
		}
	}
	if found, err := env.store.SearchText(ctx, "Sofia Duarte Porto", 5); err != nil || len(found) == 0 || found[0].DocID != doc.ID {
		t.Errorf("SearchText(Sofia Duarte Porto) = %v, %v; want the new version's passage", found, err)
	}

	if replaced := env.stats(); fresh != replaced {
		t.Errorf("stats after the replace %+v, after a fresh ingest of version 2 %+v", replaced, fresh)
	}

	if _, dup, err := env.ingester.SubmitReplacing(ctx, "policy.md", "", strings.NewReader(policyV2)); err != nil || !dup {
		t.Errorf("SubmitReplacing of the same bytes = dup %v, %v; want a duplicate", dup, err)
	}
}

func TestReplaceRefusesAVersionStillIngesting(t *testing.T) {
	release := make(chan struct{})
	env := newEnv(t, func(req llmtest.Request) (llmtest.Reply, bool) {
		if !req.IsEmbed() {
			<-release
		}
		return llmtest.Reply{}, false
	})
	defer close(release)
	ctx := context.Background()
	if _, _, err := env.ingester.Submit(ctx, "policy.md", strings.NewReader(policyV1)); err != nil {
		t.Fatal(err)
	}
	_, _, err := env.ingester.SubmitReplacing(ctx, "policy.md", "", strings.NewReader(policyV2))
	if !errors.Is(err, graphrag.ErrBusy) {
		t.Errorf("replacing a document still being ingested: %v, want ErrBusy", err)
	}
}

// TestInterruptedReplaceResumes: a replace stopped while the changed passage is being extracted leaves the
// old version answering alone; the next Run resumes the staged version and swaps it in.
// On SQLite and, with NEO4J_URI, on Neo4j.
func TestInterruptedReplaceResumes(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) { testInterruptedReplaceResumes(t, open) })
	}
}

func testInterruptedReplaceResumes(t *testing.T, open func(*testing.T, int, string) graphrag.Store) {
	opt := graphrag.IngestOptions{Workers: 1, MaxTokens: 40}
	fresh := freshStats(t, open, opt)
	var held atomic.Bool
	held.Store(true)
	asked := make(chan struct{}, 8)
	env := newIdleEnvOn(t, open(t, 64, "test-embed"), opt, func(req llmtest.Request) (llmtest.Reply, bool) {
		if held.Load() && !req.IsEmbed() && strings.Contains(req.LastUser(), "Sofia Duarte") {
			asked <- struct{}{}
			return llmtest.Reply{Delay: time.Minute}, true // ends when the job's context does
		}
		return llmtest.Reply{}, false
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); env.ingester.Run(ctx) }()
	v1 := env.ingest(map[string]string{"policy.md": policyV1})["policy.md"]
	doc, _, err := env.ingester.SubmitReplacing(context.Background(), "policy.md", "", strings.NewReader(policyV2))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the changed passage was never sent to the model")
	}
	_, _, err = env.ingester.SubmitReplacing(context.Background(), "policy.md", "", strings.NewReader(policyV2+"\nMore.\n"))
	if !errors.Is(err, graphrag.ErrBusy) {
		t.Errorf("a third version while the second is being read: %v, want ErrBusy", err)
	}
	stop()
	<-done

	bg := context.Background()
	if found, err := env.store.SearchText(bg, "Sofia Duarte", 5); err != nil || len(found) != 0 {
		t.Errorf("while interrupted SearchText(Sofia Duarte) = %d results, %v; want none", len(found), err)
	}
	if found, err := env.store.SearchText(bg, "Arjun Mehta", 5); err != nil || len(found) != 1 || found[0].DocID != v1.DocID {
		t.Errorf("while interrupted SearchText(Arjun Mehta) = %v, %v; want the old version's passage", found, err)
	}

	held.Store(false)
	resumed := graphrag.NewIngester(env.store, env.client, graphrag.NewLLMExtractor(env.client), opt, env.logger)
	ctx, stop = context.WithCancel(context.Background())
	defer stop()
	go resumed.Run(ctx)
	docs := env.waitFinished()
	if len(docs) != 1 || docs[0].ID != doc.ID || docs[0].Status != graphrag.StatusDone {
		t.Fatalf("after resuming: %+v; want only the new version, done", docs)
	}
	if got, want := env.stats(), fresh; got != want {
		t.Errorf("stats after the resumed replace %+v, after a fresh ingest %+v", got, want)
	}
}
