package neo4j

import (
	"slices"
	"testing"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/storetest"
)

func TestScopeCypher(t *testing.T) {
	const sfx = "__hr"
	for _, c := range []struct{ in, want string }{
		{"MATCH (d:Document {id: $id})-[:HAS_CHUNK]->(c:Chunk) RETURN c", "MATCH (d:Document__hr {id: $id})-[:HAS_CHUNK__hr]->(c:Chunk__hr) RETURN c"},
		{"MATCH (e:Entity)-[r:RELATED]->(o) WHERE o:Entity AND r.id = $id", "MATCH (e:Entity__hr)-[r:RELATED__hr]->(o) WHERE o:Entity__hr AND r.id = $id"},
		{"MATCH (a:Account {id: $id}), (n:ApiToken), (w:Workspace), (m:Membership), (s:Session), (x:AuditEvent)",
			"MATCH (a:Account {id: $id}), (n:ApiToken), (w:Workspace), (m:Membership), (s:Session), (x:AuditEvent)"},
		{"RETURN {status: 'pending', n: NULL} AS x, COUNT { MATCH (c:Chunk) WHERE c.embedded } AS n",
			"RETURN {status: 'pending', n: NULL} AS x, COUNT { MATCH (c:Chunk__hr) WHERE c.embedded } AS n"},
		{"CREATE CONSTRAINT chunk_id IF NOT EXISTS FOR (n:Chunk) REQUIRE n.id IS UNIQUE",
			"CREATE CONSTRAINT chunk_id__hr IF NOT EXISTS FOR (n:Chunk__hr) REQUIRE n.id IS UNIQUE"},
		{"CREATE FULLTEXT INDEX chunk_text IF NOT EXISTS FOR (n:Chunk) ON EACH [n.text]",
			"CREATE FULLTEXT INDEX chunk_text__hr IF NOT EXISTS FOR (n:Chunk__hr) ON EACH [n.text]"},
		{"CREATE INDEX related_id IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.id)", "CREATE INDEX related_id__hr IF NOT EXISTS FOR ()-[r:RELATED__hr]-() ON (r.id)"},
		{"DROP INDEX chunk_embedding_1 IF EXISTS", "DROP INDEX chunk_embedding_1__hr IF EXISTS"},
		{vectorIndexStatement(1, 8), "CREATE VECTOR INDEX chunk_embedding_1__hr IF NOT EXISTS FOR (n:Chunk__hr) ON (n.embedding1) " +
			"OPTIONS {indexConfig: {`vector.dimensions`: 8, `vector.similarity_function`: 'cosine'}}"},
	} {
		if got := scopeCypher(c.in, sfx); got != c.want {
			t.Errorf("scopeCypher(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
		if got := scopeCypher(scopeCypher(c.in, sfx), sfx); got != c.want {
			t.Errorf("scopeCypher twice of %q = %q, want it once", c.in, got)
		}
	}
	params := map[string]any{"index": chunkTextIndex, "name": vectorIndex, "label": "Chunk", "query": "chunk_text", "id": "entity_names"}
	got := workspaceParams(params, sfx)
	want := map[string]any{"index": "chunk_text__hr", "name": "chunk_embedding__hr", "label": "Chunk__hr", "query": "chunk_text", "id": "entity_names"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("workspaceParams[%s] = %v, want %v", k, got[k], v)
		}
	}
	if params["index"] != chunkTextIndex {
		t.Error("workspaceParams changed the caller's map")
	}
	if got := workspaceParams(map[string]any{"name": "ana", "label": "Account"}, sfx); got["name"] != "ana" || got["label"] != "Account" {
		t.Errorf("workspaceParams of data and a shared label = %v, want them unchanged", got)
	}
}

// TestContractInWorkspace runs the whole contract suite through a workspace's handle, beside a default
// workspace holding a document of its own: every query of the store is rewritten into the workspace, and
// none may miss it.
func TestContractInWorkspace(t *testing.T) {
	testURI(t)
	storetest.RunInWorkspace(t, func(t *testing.T, dim int) graphrag.Store {
		s := openTest(t, dim)
		t.Cleanup(func() { checkRelationProps(t, s) }) // before openTest's Close
		return s
	})
}

// TestMigrateToWorkspaces opens a database from before workspaces (documents, accounts and a token, no
// Workspace or Membership node): its graph is the default workspace's, every account a member of it with
// its own role, every token for every workspace.
func TestMigrateToWorkspaces(t *testing.T) {
	uri := testURI(t)
	ctx := t.Context()
	s := openTest(t, 8)
	for i, name := range []string{"a", "b", "c"} {
		src := []byte("document " + name)
		doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: name + ".txt", Status: graphrag.StatusDone}
		if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
			t.Fatal(err)
		}
		c := graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, 0), DocID: doc.ID, Text: "compensation passage " + name}
		if err := s.PutChunks(ctx, doc.ID, []graphrag.Chunk{c}); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, 8)
		v[i] = 1
		if err := s.SetEmbeddings(ctx, map[string][]float32{c.ID: v}); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []auth.Account{{ID: "a1", Name: "ana", Role: auth.Admin}, {ID: "a2", Name: "bo", Role: auth.Reader}} {
		a.PasswordHash = "h"
		if err := s.PutAccount(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutToken(ctx, auth.Token{ID: "t1", AccountID: "a2", Name: "script", Hash: "x", Role: auth.Reader}); err != nil {
		t.Fatal(err)
	}
	before, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// As a database from before workspaces: no Workspace, no Membership, no token workspace.
	cypher(t, uri, `MATCH (n) WHERE n:Workspace OR n:Membership DETACH DELETE n`, nil)
	cypher(t, uri, `MATCH (n:ApiToken) REMOVE n.workspace`, nil)

	s2 := openOn(t, uri, 8, testModel)
	if st, err := s2.Stats(ctx); err != nil || st != before {
		t.Errorf("the default workspace after migration = %+v, %v; want %+v as before", st, err, before)
	}
	if hits, err := s2.SearchText(ctx, "compensation", 10); err != nil || len(hits) != 3 {
		t.Errorf("SearchText after migration = %d hits, %v; want 3", len(hits), err)
	}
	ws, err := s2.Workspaces(ctx)
	if err != nil || len(ws) != 1 || ws[0].ID != auth.DefaultWorkspace {
		t.Errorf("workspaces after migration = %+v, %v; want the default alone", ws, err)
	}
	ms, err := s2.Memberships(ctx, "")
	want := []auth.Membership{{AccountID: "a1", Workspace: auth.DefaultWorkspace}, {AccountID: "a2", Workspace: auth.DefaultWorkspace}}
	if err != nil || !slices.Equal(ms, want) {
		t.Errorf("memberships after migration = %+v, %v; want every account in default with its own role", ms, err)
	}
	if tk, err := s2.Token(ctx, "t1"); err != nil || tk.Workspace != "" {
		t.Errorf("token after migration = %+v, %v; want it for every workspace", tk, err)
	}
	// Once migrated, a membership an admin ends stays ended when the database is opened again.
	if err := s2.DeleteMembership(ctx, "a2", auth.DefaultWorkspace); err != nil {
		t.Fatal(err)
	}
	s3 := openOn(t, uri, 8, testModel)
	if ms, err := s3.Memberships(ctx, "a2"); err != nil || len(ms) != 0 {
		t.Errorf("bo's memberships after a reopen = %+v, %v; want none (ended)", ms, err)
	}
	hr, err := s3.Workspace(ctx, "hr")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := hr.Stats(ctx); err != nil || st != (graphrag.Stats{}) {
		t.Errorf("a new workspace after migration = %+v, %v; want empty", st, err)
	}
}
