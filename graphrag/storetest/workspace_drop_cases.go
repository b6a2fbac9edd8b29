package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// fillRest gives f a community, a conversation with a turn, the events of a run and a lease: what a
// workspace holds beside its documents and graph.
func (f *fixture) fillRest(title string) {
	f.t.Helper()
	ctx := f.ctx
	links, err := f.s.GraphLinks(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	if detected := graphrag.DetectCommunities(links); len(detected) > 0 {
		f.putCommunities(detected)
	}
	now := time.Now().UTC()
	if err := f.s.PutConversation(ctx, graphrag.Conversation{ID: "conv1", Title: title, CreatedAt: now, UpdatedAt: now}); err != nil {
		f.t.Fatal(err)
	}
	if err := f.s.PutTurn(ctx, graphrag.Turn{ID: "turn1", ConversationID: "conv1", Ordinal: 1, Question: "asked in " + title, Status: "done", CreatedAt: now}); err != nil {
		f.t.Fatal(err)
	}
	if err := f.s.AppendRunEvents(ctx, "turn1", []graphrag.RunEvent{{Seq: 1, Data: []byte(`{"type":"token"}`)}}); err != nil {
		f.t.Fatal(err)
	}
	if _, ok, err := f.s.TakeLease(ctx, "ingest", "holder-"+title, time.Hour); err != nil || !ok {
		f.t.Fatalf("TakeLease: %v, %v", ok, err)
	}
}

// rest is what fillRest left that f still holds: communities, conversations, turns of conv1, run events of
// turn1, and whether the lease is held.
func (f *fixture) rest() [5]int {
	f.t.Helper()
	ctx := f.ctx
	convs, err := f.s.Conversations(ctx, graphrag.AllConversations)
	if err != nil {
		f.t.Fatal(err)
	}
	turns := 0
	if _, ts, err := f.s.Conversation(ctx, graphrag.AllConversations, "conv1"); err == nil {
		turns = len(ts)
	} else if !errors.Is(err, graphrag.ErrNotFound) {
		f.t.Fatal(err)
	}
	events, err := f.s.RunEvents(ctx, "turn1", 0, 10)
	if err != nil {
		f.t.Fatal(err)
	}
	lease, err := f.s.Lease(ctx, "ingest")
	if err != nil {
		f.t.Fatal(err)
	}
	held := 0
	if lease.Holder != "" {
		held = 1
	}
	return [5]int{len(f.communities()), len(convs), turns, len(events), held}
}

// testDropWorkspace: DropWorkspace removes everything of one workspace (documents, passages, vectors, the
// graph, communities, edits, conversations, run events and leases), so a handle opened again finds it
// empty, and changes nothing of the default workspace or of a third one; it refuses the default.
func testDropWorkspace(t *testing.T, f *fixture) {
	dropper, ok := f.s.(graphrag.WorkspaceDropper)
	if !ok {
		t.Fatalf("%T cannot drop workspaces", f.s)
	}
	w := newTwoWorkspaces(f)
	c := f.other("team_c")
	docC := c.doc("policy.txt", "Gamma policy")
	chunksC := c.chunks(docC, "Gamma Air refunds tickets within ninety days; Acme is based in Oslo.")
	c.embedAll(chunksC)
	c.extract(chunksC[0].ID, []graphrag.Entity{w.acme, ent("Oslo", "city", "")}, rel(w.acme, "BASED_IN", ent("Oslo", "city", ""), nil))
	zeta := graphrag.NormalizeKey("Zeta")
	w.b.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditMerge, Keys: []string{w.acme.Key, zeta},
		Names: []string{"Zeta"}, By: "user"}, []string{w.acme.Key, zeta},
		func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanMerge(s, w.acme.Key, []string{zeta})
		})
	for _, side := range []struct {
		f     *fixture
		title string
	}{{w.a, "A"}, {w.b, "B"}, {c, "C"}} {
		side.f.fillRest(side.title)
	}
	statsA, statsC := w.a.stats(), c.stats()
	restA, restC := w.a.rest(), c.rest()
	if w.b.stats().Documents != 2 || w.b.rest()[1] != 1 {
		t.Fatalf("team_b before the drop: %+v, %v; want its 2 documents and a conversation", w.b.stats(), w.b.rest())
	}

	if err := dropper.DropWorkspace(f.ctx, graphrag.DefaultWorkspace); !errors.Is(err, graphrag.ErrWorkspace) {
		t.Errorf("DropWorkspace(default): error %v, want one wrapping ErrWorkspace", err)
	}
	if err := dropper.DropWorkspace(f.ctx, otherWorkspace); err != nil {
		t.Fatalf("DropWorkspace(team_b): %v", err)
	}
	if err := dropper.DropWorkspace(f.ctx, otherWorkspace); err != nil {
		t.Errorf("DropWorkspace of a workspace dropped: %v", err)
	}
	if err := dropper.DropWorkspace(f.ctx, "never_used"); err != nil {
		t.Errorf("DropWorkspace of a workspace never used: %v", err)
	}

	b := f.other(otherWorkspace)
	b.wantStats("after the drop", graphrag.Stats{})
	if docs, err := b.s.Documents(f.ctx); err != nil || len(docs) != 0 {
		t.Errorf("team_b's documents after the drop = %v, %v; want none", docIDs(docs), err)
	}
	if got := b.searchText("refunds tickets", 5); len(got) != 0 {
		t.Errorf("team_b's keyword search after the drop found %d passages", len(got))
	}
	if got := b.searchVector(axis(1), 5); len(got) != 0 {
		t.Errorf("team_b's vector search after the drop found %d passages", len(got))
	}
	if edits, err := b.s.Edits(f.ctx, graphrag.EditQuery{}); err != nil || len(edits) != 0 {
		t.Errorf("team_b's edits after the drop = %d, %v; want none", len(edits), err)
	}
	if got := b.rest(); got != [5]int{} {
		t.Errorf("team_b after the drop holds communities, conversations, turns, run events, lease = %v; want none", got)
	}

	w.a.wantStats("after team_b was dropped", statsA)
	c.wantStats("after team_b was dropped", statsC)
	if got := w.a.rest(); got != restA {
		t.Errorf("default after team_b was dropped holds %v, want %v as before", got, restA)
	}
	if got := c.rest(); got != restC {
		t.Errorf("team_c after team_b was dropped holds %v, want %v as before", got, restC)
	}
	if e := w.a.entity(w.acme.Key); e.Description != "robot maker of workspace A" {
		t.Errorf("default's Acme after the drop = %q", e.Description)
	}
	if got := c.searchText("Gamma refunds", 5); len(got) != 1 {
		t.Errorf("team_c's keyword search after the drop found %d passages, want its one", len(got))
	}
	if got := w.a.searchVector(axis(1), 5); len(got) != 2 {
		t.Errorf("default's vector search after the drop found %d passages, want its 2", len(got))
	}
}
