package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// The workspace cases fill the store's default workspace and a second one ("team_b") with overlapping
// documents (the same file in both, the same file name with other contents) and overlapping graphs (the
// same entity keys and relation IDs with other descriptions), then check that no read through one
// workspace's handle returns anything of the other and that no write or delete through it changes the other.
var workspaceCases = []testCase{
	{"Workspace returns the store for default, one handle per workspace, and refuses bad IDs", testWorkspaceHandles},
	{"documents, passages and searches stay in their workspace", testWorkspaceDocuments},
	{"entities, graph facts, walks and links stay in their workspace", testWorkspaceGraph},
	{"deletes, failures and retries in one workspace leave the other", testWorkspaceDeletes},
	{"communities, edits, conversations and re-embedding stay in their workspace", testWorkspaceRest},
	{"dropping a workspace removes everything of it and nothing of another", testDropWorkspace},
}

const otherWorkspace = "team_b"

// other is a fixture on another workspace of f's store.
func (f *fixture) other(id string) *fixture {
	f.t.Helper()
	s, err := f.s.Workspace(f.ctx, id)
	if err != nil {
		f.t.Fatalf("Workspace(%q): %v", id, err)
	}
	return &fixture{t: f.t, ctx: f.ctx, s: s}
}

func docIDs(docs []graphrag.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

func testWorkspaceHandles(t *testing.T, f *fixture) {
	// f.s is the store (the default workspace) or, when the suite runs in a workspace, that one's handle.
	def, err := f.s.Workspace(f.ctx, graphrag.DefaultWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := def.Workspace(f.ctx, graphrag.DefaultWorkspace); err != nil || again != def {
		t.Errorf("Workspace(default) on the store = %v, %v; want the store itself", again, err)
	}
	b := f.other(otherWorkspace)
	if b.s == f.s || b.s == def {
		t.Fatal("Workspace(team_b) is the store of another workspace")
	}
	if again := f.other(otherWorkspace); again.s != b.s {
		t.Error("Workspace(team_b) twice gave two handles")
	}
	if back, err := b.s.Workspace(f.ctx, graphrag.DefaultWorkspace); err != nil || back != def {
		t.Errorf("Workspace(default) on team_b's handle = %v, %v; want the store itself", back, err)
	}
	for _, bad := range []string{"", "Team B", "team-b", "../x", "1team", "team/b", "t" + string(make([]byte, 40))} {
		if _, err := f.s.Workspace(f.ctx, bad); !errors.Is(err, graphrag.ErrWorkspace) {
			t.Errorf("Workspace(%q): error %v, want one wrapping ErrWorkspace", bad, err)
		}
	}
	f.doc("a.txt", "only in this workspace")
	b.wantStats("of a new workspace", graphrag.Stats{})
	if err := b.s.Ping(f.ctx); err != nil {
		t.Errorf("Ping on team_b: %v", err)
	}
	// Closing a workspace's handle leaves it and the store usable: they belong to the store.
	if err := b.s.Close(); err != nil {
		t.Errorf("Close on team_b's handle: %v", err)
	}
	b.wantStats("after its handle was closed", graphrag.Stats{})
	f.wantStats("after team_b's handle was closed", graphrag.Stats{Documents: 1})
}

// twoWorkspaces fills the default workspace (a) and team_b (b) each with the same shared file and a
// policy.txt of its own, every chunk embedded (the same vectors in both) and its own graph over the same
// keys and relation IDs.
type twoWorkspaces struct {
	a, b                 *fixture
	sharedA, sharedB     graphrag.Document // the same file: the same ID in both
	policyA, policyB     graphrag.Document // the same name, other contents
	chunksA, chunksB     []graphrag.Chunk  // shared's chunk, then policy's
	acme, munich, lisbon graphrag.Entity
	basedA, basedB, supp graphrag.Relation // supp has the same ID in both
}

func newTwoWorkspaces(f *fixture) *twoWorkspaces {
	f.t.Helper()
	w := &twoWorkspaces{a: f, b: f.other(otherWorkspace)}
	w.sharedA = w.a.doc("handbook.txt", "the shared staff handbook")
	w.sharedB = w.b.doc("handbook.txt", "the shared staff handbook")
	if w.sharedA.ID != w.sharedB.ID {
		f.t.Fatalf("the same file has IDs %s and %s", w.sharedA.ID, w.sharedB.ID)
	}
	w.policyA = w.a.doc("policy.txt", "Alpha policy")
	w.policyB = w.b.doc("policy.txt", "Beta policy")
	w.chunksA = slices.Concat(w.a.chunks(w.sharedA, "Baggage allowance is twenty kilograms for staff travel."),
		w.a.chunks(w.policyA, "Alpha Air refunds tickets within seven days; Acme is based in Munich."))
	w.chunksB = slices.Concat(w.b.chunks(w.sharedB, "Baggage allowance is twenty kilograms for staff travel."),
		w.b.chunks(w.policyB, "Beta Air refunds tickets within thirty days; Acme is based in Lisbon."))
	w.a.embedAll(w.chunksA)
	w.b.embedAll(w.chunksB)

	baggage := ent("Baggage allowance", "policy", "what staff may carry")
	w.a.extract(w.chunksA[0].ID, []graphrag.Entity{baggage})
	w.b.extract(w.chunksB[0].ID, []graphrag.Entity{baggage})
	acmeA, acmeB := ent("Acme", "organization", "robot maker of workspace A"), ent("Acme", "organization", "bakery of workspace B")
	w.acme = acmeA
	zeta := ent("Zeta", "organization", "")
	w.munich, w.lisbon = ent("Munich", "city", ""), ent("Lisbon", "city", "")
	w.basedA, w.basedB = rel(acmeA, "BASED_IN", w.munich, nil), rel(acmeB, "BASED_IN", w.lisbon, nil)
	suppA, suppB := rel(acmeA, "SUPPLIES", zeta, map[string]any{"item": "robots"}), rel(acmeB, "SUPPLIES", zeta, map[string]any{"item": "bread"})
	suppA.Embedding, suppB.Embedding = axis(3), axis(3)
	w.supp = suppA
	w.a.extract(w.chunksA[1].ID, []graphrag.Entity{acmeA, w.munich, zeta}, w.basedA, suppA)
	w.b.extract(w.chunksB[1].ID, []graphrag.Entity{acmeB, w.lisbon, zeta}, w.basedB, suppB)
	return w
}

func testWorkspaceDocuments(t *testing.T, f *fixture) {
	w := newTwoWorkspaces(f)
	for _, side := range []struct {
		name         string
		f            *fixture
		own, other   graphrag.Document
		chunks       []graphrag.Chunk
		otherChunks  []graphrag.Chunk
		word, absent string
	}{
		{"default", w.a, w.policyA, w.policyB, w.chunksA, w.chunksB, "seven", "thirty"},
		{otherWorkspace, w.b, w.policyB, w.policyA, w.chunksB, w.chunksA, "thirty", "seven"},
	} {
		s, ctx := side.f.s, f.ctx
		docs, err := s.Documents(ctx)
		if err != nil || !sameSet(docIDs(docs), []string{w.sharedA.ID, side.own.ID}) || len(docs) != 2 {
			t.Errorf("%s: Documents = %v, %v; want its own two", side.name, docIDs(docs), err)
		}
		named, err := s.DocumentsNamed(ctx, "policy.txt")
		if err != nil || !slices.Equal(docIDs(named), []string{side.own.ID}) {
			t.Errorf("%s: DocumentsNamed(policy.txt) = %v, %v; want only its own %s", side.name, docIDs(named), err, side.own.ID)
		}
		if _, err := s.Document(ctx, side.other.ID); !errors.Is(err, graphrag.ErrNotFound) {
			t.Errorf("%s: Document(the other's policy) error %v, want ErrNotFound", side.name, err)
		}
		if _, err := s.DocumentSource(ctx, side.other.ID); !errors.Is(err, graphrag.ErrNotFound) {
			t.Errorf("%s: DocumentSource(the other's policy) error %v, want ErrNotFound", side.name, err)
		}
		if cs, _ := s.DocumentChunks(ctx, side.other.ID); len(cs) != 0 {
			t.Errorf("%s: DocumentChunks(the other's policy) = %v, want none", side.name, chunkIDs(cs))
		}
		if cs, err := s.Chunks(ctx, chunkIDs(side.otherChunks[1:])); err != nil || len(cs) != 0 {
			t.Errorf("%s: Chunks(the other's passage) = %v, %v; want none", side.name, chunkIDs(cs), err)
		}
		src, err := s.DocumentSource(ctx, side.own.ID)
		if err != nil || (side.name == "default") != (string(src) == "Alpha policy") {
			t.Errorf("%s: DocumentSource(its policy) = %q, %v", side.name, src, err)
		}
		if got := ids(side.f.searchText("refunds tickets days", 10)); !slices.Equal(got, []string{side.chunks[1].ID}) {
			t.Errorf("%s: SearchText(refunds tickets days) = %v, want only its own %s", side.name, got, side.chunks[1].ID)
		}
		if got := side.f.searchText(side.absent, 10); len(got) != 0 {
			t.Errorf("%s: SearchText(%q), a word of the other's policy only, = %v, want none", side.name, side.absent, ids(got))
		}
		var text string
		for _, r := range side.f.searchText(side.word, 10) {
			text += r.Text
		}
		if text != side.chunks[1].Text {
			t.Errorf("%s: SearchText(%q) read %q, want its own passage", side.name, side.word, text)
		}
		// Both workspaces hold the same vectors: each search ranks its own passages alone.
		for i := range 2 {
			got := ids(side.f.searchVector(axis(i), 10))
			if len(got) == 0 || got[0] != side.chunks[i].ID || len(got) > 2 || !sameSet(append(got, chunkIDs(side.chunks)...), chunkIDs(side.chunks)) {
				t.Errorf("%s: SearchVector(axis %d) = %v, want its own %s first and no other's", side.name, i, got, side.chunks[i].ID)
			}
		}
		side.f.wantStats(side.name, graphrag.Stats{Documents: 2, Chunks: 2, Embedded: 2, Entities: 4, Relations: 2, Mentions: 4})
	}
	// The shared file's steps are recorded per workspace.
	if err := w.a.s.SetDocumentStatus(f.ctx, w.sharedA.ID, graphrag.StatusFailed, "stopped in A", graphrag.DocumentMeta{Title: "A's title"}); err != nil {
		t.Fatal(err)
	}
	if got := w.b.document(w.sharedB.ID); got.Status == graphrag.StatusFailed || got.Title == "A's title" || got.Error != "" {
		t.Errorf("team_b's copy after a status set in default = %+v, want it unchanged", got)
	}
	// Putting the other's document in again creates it here, not there.
	if _, created, err := w.b.s.PutDocument(f.ctx, w.policyA, []byte("Alpha policy")); err != nil || !created {
		t.Errorf("PutDocument of default's policy in team_b = created %v, %v; want created (team_b never had it)", created, err)
	}
}

func testWorkspaceGraph(t *testing.T, f *fixture) {
	w := newTwoWorkspaces(f)
	for _, side := range []struct {
		name        string
		f           *fixture
		chunk       string // the chunk mentioning Acme here
		otherChunk  string
		description string
		based       graphrag.Relation
		item        string
		city, away  graphrag.Entity
	}{
		{"default", w.a, w.chunksA[1].ID, w.chunksB[1].ID, "robot maker of workspace A", w.basedA, "robots", w.munich, w.lisbon},
		{otherWorkspace, w.b, w.chunksB[1].ID, w.chunksA[1].ID, "bakery of workspace B", w.basedB, "bread", w.lisbon, w.munich},
	} {
		s, ctx := side.f.s, f.ctx
		e := side.f.entity(w.acme.Key)
		if e.Description != side.description || !slices.Equal(e.ChunkIDs, []string{side.chunk}) {
			t.Errorf("%s: Entities(acme) = description %q chunks %v; want %q and [%s]", side.name, e.Description, e.ChunkIDs, side.description, side.chunk)
		}
		if es, err := s.Entities(ctx, []string{side.away.Key}); err != nil || len(es) != 0 {
			t.Errorf("%s: Entities(%s), the other's city = %d entities, %v; want none", side.name, side.away.Key, len(es), err)
		}
		found, err := s.SearchEntities(ctx, "Acme", 10)
		if err != nil || len(found) != 1 || found[0].Description != side.description {
			t.Errorf("%s: SearchEntities(Acme) = %+v, %v; want its own Acme alone", side.name, found, err)
		}
		if found, _ := s.SearchEntities(ctx, side.away.Name, 10); len(found) != 0 {
			t.Errorf("%s: SearchEntities(%s), the other's city = %+v, want none", side.name, side.away.Name, found)
		}
		edges := side.f.neighborhood([]string{w.acme.Key}, 2, 100)
		if !sameSet(edgeIDs(edges), []string{side.based.ID, w.supp.ID}) || len(edges) != 2 {
			t.Errorf("%s: Neighborhood(acme) = %v, want its own %s and %s", side.name, edgeIDs(edges), side.based.ID, w.supp.ID)
		}
		for _, ed := range edges {
			if !slices.Equal(ed.ChunkIDs, []string{side.chunk}) {
				t.Errorf("%s: fact %s supported by %v, want [%s]", side.name, ed.ID, ed.ChunkIDs, side.chunk)
			}
			if ed.ID == w.supp.ID && ed.Values["item"] != side.item {
				t.Errorf("%s: SUPPLIES item = %v, want %q", side.name, ed.Values["item"], side.item)
			}
		}
		sg, err := s.Subgraph(ctx, graphrag.SubgraphQuery{Keys: []string{w.acme.Key}, ChunkIDs: []string{side.chunk, side.otherChunk},
			Vectors: [][]float32{axis(3)}, PerEntity: 10, MaxRelations: 100})
		if err != nil {
			t.Fatalf("%s: Subgraph: %v", side.name, err)
		}
		var relIDs []string
		for _, r := range sg.Relations {
			relIDs = append(relIDs, r.ID)
		}
		if !sameSet(relIDs, []string{side.based.ID, w.supp.ID}) || len(relIDs) != 2 {
			t.Errorf("%s: Subgraph relations = %v, want its own two", side.name, relIDs)
		}
		if !slices.Equal(sg.Mentions[w.acme.Key], []string{side.chunk}) || sg.Mentioned[w.acme.Key] != 1 {
			t.Errorf("%s: Subgraph mentions of acme = %v (%d), want [%s] (1)", side.name, sg.Mentions[w.acme.Key], sg.Mentioned[w.acme.Key], side.chunk)
		}
		if len(sg.ChunkEntities[side.otherChunk]) != 0 {
			t.Errorf("%s: Subgraph read the entities of the other's passage %s", side.name, side.otherChunk)
		}
		links, err := s.GraphLinks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var linkIDs []string
		for _, l := range links {
			linkIDs = append(linkIDs, l.ID)
			if !slices.Equal(l.ChunkIDs, []string{side.chunk}) {
				t.Errorf("%s: link %s from %v, want [%s]", side.name, l.ID, l.ChunkIDs, side.chunk)
			}
		}
		if !sameSet(linkIDs, []string{side.based.ID, w.supp.ID}) {
			t.Errorf("%s: GraphLinks = %v, want its own two", side.name, linkIDs)
		}
		state, err := s.GraphState(ctx, []string{w.acme.Key, side.away.Key})
		if err != nil {
			t.Fatal(err)
		}
		if len(state.Entities) != 1 || state.Entities[0].Description != side.description {
			t.Errorf("%s: GraphState(acme, the other's city) = %+v, want its own Acme alone", side.name, state.Entities)
		}
	}
}

func testWorkspaceDeletes(t *testing.T, f *fixture) {
	w := newTwoWorkspaces(f)
	ctx := f.ctx
	before := w.b.stats()
	if err := w.a.s.DeleteDocument(ctx, w.sharedA.ID); err != nil {
		t.Fatalf("DeleteDocument(shared) in default: %v", err)
	}
	// Deleting, through default, a document only team_b holds finds nothing to delete.
	if err := w.a.s.DeleteDocument(ctx, w.policyB.ID); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("DeleteDocument(team_b's policy) in default: %v", err)
	}
	if err := w.a.s.MarkChunkFailed(ctx, w.chunksB[1].ID, "failed through default"); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("MarkChunkFailed(team_b's passage) in default: %v", err)
	}
	if n, err := w.a.s.RetryFailedChunks(ctx, w.policyB.ID); err != nil || n != 0 {
		t.Errorf("RetryFailedChunks(team_b's policy) in default = %d, %v; want 0", n, err)
	}
	if _, err := w.a.s.Document(ctx, w.sharedA.ID); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("default's shared copy after its delete: error %v, want ErrNotFound", err)
	}
	w.b.wantStats("after default deleted its copy of the shared file and team_b's IDs", before)
	for _, d := range []graphrag.Document{w.sharedB, w.policyB} {
		if got := w.b.document(d.ID); got.Chunks != 1 || got.ChunksEmbedded != 1 {
			t.Errorf("team_b's %s after default's deletes = %d chunks, %d embedded; want 1 and 1", d.Name, got.Chunks, got.ChunksEmbedded)
		}
	}
	cs, err := w.b.s.Chunks(ctx, chunkIDs(w.chunksB))
	if err != nil || len(cs) != 2 {
		t.Fatalf("team_b's chunks = %d, %v", len(cs), err)
	}
	for _, c := range cs {
		if c.Status != graphrag.ChunkExtracted || c.Error != "" {
			t.Errorf("team_b's chunk %s = %s %q, want extracted without error", c.ID, c.Status, c.Error)
		}
	}
	if got := ids(w.b.searchText("baggage allowance", 10)); !slices.Equal(got, []string{w.chunksB[0].ID}) {
		t.Errorf("team_b SearchText(baggage allowance) after default's delete = %v, want [%s]", got, w.chunksB[0].ID)
	}
	if es, err := w.b.s.Entities(ctx, []string{graphrag.NormalizeKey("Baggage allowance")}); err != nil || len(es) != 1 {
		t.Errorf("team_b's Baggage allowance after default's delete = %d entities, %v; want 1", len(es), err)
	}
	if es, err := w.a.s.Entities(ctx, []string{graphrag.NormalizeKey("Baggage allowance")}); err != nil || len(es) != 0 {
		t.Errorf("default's Baggage allowance after its only mention was deleted = %d entities, %v; want none", len(es), err)
	}
	// And the other way round: team_b deletes its policy; default's keeps its graph.
	if err := w.b.s.DeleteDocument(ctx, w.policyB.ID); err != nil {
		t.Fatal(err)
	}
	if e := w.a.entity(w.acme.Key); e.Description != "robot maker of workspace A" {
		t.Errorf("default's Acme after team_b deleted its policy = %q", e.Description)
	}
	if edges := w.a.neighborhood([]string{w.acme.Key}, 1, 10); len(edges) != 2 {
		t.Errorf("default's facts of Acme after team_b's delete = %v, want 2", edgeIDs(edges))
	}
	w.a.wantStats("after team_b's delete", graphrag.Stats{Documents: 1, Chunks: 1, Embedded: 1, Entities: 3, Relations: 2, Mentions: 3})
}

func testWorkspaceRest(t *testing.T, f *fixture) {
	w := newTwoWorkspaces(f)
	ctx := f.ctx

	// Communities with the same ID in both.
	linksA, err := w.a.s.GraphLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	detected := graphrag.DetectCommunities(linksA)
	if len(detected) == 0 {
		t.Fatal("no community among default's links")
	}
	w.a.putCommunities(detected)
	if got := w.b.communities(); len(got) != 0 {
		t.Errorf("team_b's communities after default stored %d = %d, want none", len(detected), len(got))
	}
	if err := w.b.s.SetCommunitySummary(ctx, detected[0].ID, detected[0].Signature, "B's title", "B's summary"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("SetCommunitySummary in team_b of default's community: error %v, want ErrNotFound", err)
	}
	if got := w.a.communities(); len(got) != len(detected) || got[0].Title != "" {
		t.Errorf("default's communities after team_b's summary = %+v, want %d without a title", got, len(detected))
	}

	// An edit in default (Zeta merged into Acme) changes nothing of team_b's graph over the same keys.
	zeta := graphrag.NormalizeKey("Zeta")
	m := w.a.edit(graphrag.Edit{ID: graphrag.NewEditID(), Kind: graphrag.EditMerge, Keys: []string{w.acme.Key, zeta},
		Names: []string{"Zeta"}, By: "user"}, []string{w.acme.Key, zeta},
		func(s graphrag.GraphPatch) (graphrag.GraphPatch, error) {
			return graphrag.PlanMerge(s, w.acme.Key, []string{zeta})
		})
	if es, err := w.a.s.Entities(ctx, []string{zeta}); err != nil || len(es) != 0 {
		t.Errorf("default's Zeta after the merge = %d, %v; want merged away", len(es), err)
	}
	if es, err := w.b.s.Entities(ctx, []string{zeta}); err != nil || len(es) != 1 {
		t.Errorf("team_b's Zeta after default's merge = %d, %v; want it still there", len(es), err)
	}
	if edits, err := w.b.s.Edits(ctx, graphrag.EditQuery{}); err != nil || len(edits) != 0 {
		t.Errorf("team_b's edits after default's merge = %d, %v; want none", len(edits), err)
	}
	if edits, err := w.a.s.Edits(ctx, graphrag.EditQuery{ID: m.ID}); err != nil || len(edits) != 1 {
		t.Errorf("default's edit %s = %d, %v; want it", m.ID, len(edits), err)
	}

	// Conversations with the same ID in both.
	now := time.Now().UTC()
	for _, side := range []*fixture{w.a, w.b} {
		title := "A's talk"
		if side == w.b {
			title = "B's talk"
		}
		if err := side.s.PutConversation(ctx, graphrag.Conversation{ID: "conv1", Title: title, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.a.s.PutConversation(ctx, graphrag.Conversation{ID: "conv2", Title: "only in A", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := w.a.s.PutTurn(ctx, graphrag.Turn{ID: "turn1", ConversationID: "conv1", Ordinal: 1, Question: "asked in A", Status: "done", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	list, err := w.b.s.Conversations(ctx, graphrag.AllConversations)
	if err != nil || len(list) != 1 || list[0].Title != "B's talk" {
		t.Errorf("team_b's conversations = %+v, %v; want its own conv1 alone", list, err)
	}
	c, turns, err := w.b.s.Conversation(ctx, graphrag.AllConversations, "conv1")
	if err != nil || c.Title != "B's talk" || len(turns) != 0 {
		t.Errorf("team_b's conv1 = %q with %d turns, %v; want B's talk without A's turn", c.Title, len(turns), err)
	}
	if _, _, err := w.b.s.Conversation(ctx, graphrag.AllConversations, "conv2"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("team_b opening default's conv2: error %v, want ErrNotFound", err)
	}
	if err := w.b.s.DeleteConversation(ctx, graphrag.AllConversations, "conv2"); err != nil && !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("team_b deleting default's conv2: %v", err)
	}
	if err := w.b.s.DeleteConversation(ctx, graphrag.AllConversations, "conv1"); err != nil {
		t.Errorf("team_b deleting its conv1: %v", err)
	}
	if list, err := w.a.s.Conversations(ctx, graphrag.AllConversations); err != nil || len(list) != 2 {
		t.Errorf("default's conversations after team_b's deletes = %d, %v; want 2", len(list), err)
	}
	if _, turns, err := w.a.s.Conversation(ctx, graphrag.AllConversations, "conv1"); err != nil || len(turns) != 1 {
		t.Errorf("default's conv1 after team_b deleted its own = %d turns, %v; want 1", len(turns), err)
	}

	// A re-embedding begun in team_b is team_b's.
	target := graphrag.EmbeddingSpace{Model: "another-model", Dim: dim}
	if err := w.b.s.BeginReembed(ctx, target); err != nil {
		t.Fatal(err)
	}
	if st, err := w.a.s.ReembedState(ctx); err != nil || st.Target != (graphrag.EmbeddingSpace{}) || st.Chunks != 2 {
		t.Errorf("default's re-embedding state after team_b began one = %+v, %v; want none under way over its 2 passages", st, err)
	}
	if st, err := w.b.s.ReembedState(ctx); err != nil || st.Target != target || st.Chunks != 2 {
		t.Errorf("team_b's re-embedding state = %+v, %v; want %+v over its 2 passages", st, err, target)
	}
}

// RunInWorkspace runs every contract test through the handle of a workspace ("team_a") of each new store
// from newStore, whose default workspace holds a document, a passage and an entity of its own: the cases
// count and list exactly what they stored, so anything of the default workspace a query reached would
// fail them. A workspace's store is a store like any other.
func RunInWorkspace(t *testing.T, newStore func(t *testing.T, dim int) graphrag.Store) {
	Run(t, func(t *testing.T, dim int) graphrag.Store {
		root := newStore(t, dim)
		f := &fixture{t: t, ctx: t.Context(), s: root}
		d := f.doc("default.txt", "the default workspace's own document")
		cs := f.chunks(d, "Munich Delhi Lufthansa compensation refunds baggage tickets days")
		v := make([]float32, dim)
		for i := range v {
			v[i] = 1
		}
		f.embed(map[string][]float32{cs[0].ID: v})
		f.extract(cs[0].ID, []graphrag.Entity{ent("Munich", "city", "the default workspace's Munich")})
		ws, err := root.Workspace(t.Context(), "team_a")
		if err != nil {
			t.Fatalf("Workspace(team_a): %v", err)
		}
		return ws
	})
}
