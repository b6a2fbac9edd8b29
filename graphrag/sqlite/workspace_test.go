package sqlite

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/storetest"
)

// TestStoreContractInWorkspace runs the whole contract suite through a workspace's handle, beside a default
// workspace that holds documents of its own.
func TestStoreContractInWorkspace(t *testing.T) {
	storetest.RunInWorkspace(t, func(t *testing.T, dim int) graphrag.Store {
		return openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), dim)
	})
}

func TestWorkspaceFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hopwise.db")
	root := openTemp(t, path, 4)
	hr, err := root.Workspace(t.Context(), "hr")
	if err != nil {
		t.Fatal(err)
	}
	fill(t, hr.(*Store), "contract.txt")
	if _, err := os.Stat(filepath.Join(dir, "hopwise.workspaces", "hr.db")); err != nil {
		t.Errorf("hr's file: %v, want hopwise.workspaces/hr.db beside the store", err)
	}
	if st, _ := root.Stats(t.Context()); st.Documents != 0 {
		t.Errorf("the default workspace holds %d documents after hr got one, want 0", st.Documents)
	}
	if err := root.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Workspace(t.Context(), "hr"); err == nil {
		t.Error("Workspace after Close succeeded, want an error")
	}
	// Reopened for any model (a command that only reads), hr keeps what it had.
	again, err := Open(t.Context(), path, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	hr, err = again.Workspace(t.Context(), "hr")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := hr.Stats(t.Context()); err != nil || st.Documents != 1 || st.Chunks != 2 || st.Embedded != 2 {
		t.Errorf("hr reopened = %+v, %v; want its document with 2 embedded chunks", st, err)
	}
}

// TestMigrateToWorkspaces opens a store that Hopwise wrote before workspaces (testdata/before-workspaces.db:
// schema version 11, written by the commit before them with five documents of two embedded passages
// each and a fact, the accounts ana (admin) and bo (reader), bo's token t1 and bo's conversation c1 with
// one turn): everything it held is the default workspace's, every account a member of it with its own
// role, every token for every workspace.
func TestMigrateToWorkspaces(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "hopwise.db")
	old, err := os.ReadFile(filepath.Join("testdata", "before-workspaces.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	const documents, chunks = 5, 10
	s := openTemp(t, path, 4)
	if v := schemaVersion(t, s); v != len(migrations) {
		t.Errorf("migrated file at version %d, want %d", v, len(migrations))
	}
	def, err := s.Workspace(ctx, graphrag.DefaultWorkspace)
	if err != nil || def != graphrag.Store(s) {
		t.Fatalf("Workspace(default) = %v, %v; want the store itself", def, err)
	}
	want := graphrag.Stats{Documents: documents, Chunks: chunks, Embedded: chunks, Entities: 2, Relations: 1, Mentions: 2 * documents}
	if st, err := def.Stats(ctx); err != nil || st != want {
		t.Errorf("default workspace after migration = %+v, %v; want %+v as the old store held", st, err, want)
	}
	docs, err := def.Documents(ctx)
	if err != nil || len(docs) != documents {
		t.Fatalf("documents after migration = %d, %v; want %d", len(docs), err, documents)
	}
	for _, d := range docs {
		cs, err := def.DocumentChunks(ctx, d.ID)
		if err != nil || len(cs) != 2 || d.Status != graphrag.StatusDone || d.ChunksEmbedded != 2 {
			t.Errorf("%s after migration = %s, %d passages (%d embedded), %v; want done with 2 embedded", d.Name, d.Status, len(cs), d.ChunksEmbedded, err)
		}
		if src, err := def.DocumentSource(ctx, d.ID); err != nil || string(src) != "content of "+d.Name {
			t.Errorf("%s's source after migration = %q, %v", d.Name, src, err)
		}
	}
	if hits, err := def.SearchText(ctx, "compensation", 10); err != nil || len(hits) != documents {
		t.Errorf("SearchText after migration = %d hits, %v; want the %d documents' passages", len(hits), err, documents)
	}
	if hits, err := def.SearchVector(ctx, []float32{1, 0, 0, 0}, 5); err != nil || len(hits) != 5 || hits[0].Score < 0.99 {
		t.Errorf("SearchVector after migration = %+v, %v; want the 5 passages of that vector", hits, err)
	}
	if edges, err := def.Neighborhood(ctx, []string{"munich"}, 1, 10); err != nil || len(edges) != 1 || len(edges[0].ChunkIDs) != documents {
		t.Errorf("Munich's facts after migration = %+v, %v; want one, from every document", edges, err)
	}
	if c, turns, err := def.Conversation(ctx, graphrag.ConversationScope{Owner: "a2"}, "c1"); err != nil || c.Title != "before workspaces" || len(turns) != 1 {
		t.Errorf("bo's conversation after migration = %+v with %d turns, %v", c, len(turns), err)
	}
	ws, err := s.Workspaces(ctx)
	if err != nil || len(ws) != 1 || ws[0].ID != auth.DefaultWorkspace {
		t.Errorf("workspaces after migration = %+v, %v; want the default alone", ws, err)
	}
	ms, err := s.Memberships(ctx, "")
	wantMembers := []auth.Membership{{AccountID: "a1", Workspace: auth.DefaultWorkspace}, {AccountID: "a2", Workspace: auth.DefaultWorkspace}}
	if err != nil || !slices.Equal(ms, wantMembers) {
		t.Errorf("memberships after migration = %+v, %v; want every account in default with its own role", ms, err)
	}
	if tk, err := s.Token(ctx, "t1"); err != nil || tk.Workspace != "" || tk.Role != auth.Reader {
		t.Errorf("token after migration = %+v, %v; want it for every workspace, reader", tk, err)
	}
	// A workspace made after the migration starts empty.
	hr, err := s.Workspace(ctx, "hr")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := hr.Stats(ctx); err != nil || st != (graphrag.Stats{}) {
		t.Errorf("a new workspace after migration = %+v, %v; want empty", st, err)
	}
	if !strings.HasSuffix(WorkspacePath(path, "hr"), filepath.Join("hopwise.workspaces", "hr.db")) {
		t.Errorf("WorkspacePath = %s", WorkspacePath(path, "hr"))
	}
}
