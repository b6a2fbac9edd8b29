package sqlite

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

func schemaVersion(t *testing.T, s *Store) int {
	t.Helper()
	var v string
	if err := s.reader.QueryRowContext(t.Context(), `SELECT value FROM meta WHERE key = ?`, metaSchemaVersion).Scan(&v); err != nil {
		t.Fatalf("read schema version: %v", err)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMigrateFromAnOlderVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openTemp(t, path, 4)
	if v := schemaVersion(t, s); v != len(migrations) {
		t.Fatalf("new file at version %d, want %d", v, len(migrations))
	}
	fill(t, s, "a.txt")
	if err := s.PutConversation(t.Context(), graphrag.Conversation{ID: "c-old", Title: "Asked before accounts"}); err != nil {
		t.Fatal(err)
	}
	// Take the file back to version 1, as an older Hopwise left it.
	if _, err := s.writer.ExecContext(t.Context(), `DROP TRIGGER relation_chunks_support_insert;
		DROP TRIGGER relation_chunks_support_delete; DROP TRIGGER relation_chunks_support_update;
		DROP TRIGGER mentions_count_insert; DROP TRIGGER mentions_count_delete; DROP TRIGGER mentions_count_update;
		DROP INDEX relations_source_ranked; DROP INDEX relations_target_ranked;
		DROP TRIGGER relations_count_insert; DROP TRIGGER relations_count_delete; DROP TRIGGER relations_count_update;
		ALTER TABLE entities DROP COLUMN relation_count;
		CREATE INDEX relations_source ON relations(source); CREATE INDEX relations_target ON relations(target);
		ALTER TABLE relations DROP COLUMN support; ALTER TABLE entities DROP COLUMN mention_count;
		DROP TRIGGER chunks_vector_insert; DROP TRIGGER chunks_vector_update;
		DROP TRIGGER chunks_vector_delete; DROP TRIGGER documents_vectors_publish; DROP TABLE vector_changes;
		DROP INDEX chunks_reextract; DROP INDEX chunks_reextracted;
		ALTER TABLE chunks DROP COLUMN graph_next;
		DROP INDEX chunks_reembed; DROP INDEX relations_reembed;
		ALTER TABLE chunks DROP COLUMN embedding_next; ALTER TABLE relations DROP COLUMN embedding_next;
		DROP TABLE chunks_vocab;
		ALTER TABLE relations DROP COLUMN embedding;
		ALTER TABLE documents DROP COLUMN replaces;
		ALTER TABLE chunks DROP COLUMN staged;
		ALTER TABLE chunks DROP COLUMN page;
		DROP TABLE communities;
		DROP TABLE edit_keys;
		DROP TABLE edits;
		DROP TABLE leases; DROP TABLE run_events;
		DROP TABLE memberships; DROP TABLE workspaces;
		DROP TABLE audit; DROP TABLE api_tokens; DROP TABLE sessions; DROP TABLE accounts;
		DROP INDEX conversations_owner; ALTER TABLE conversations DROP COLUMN owner;
		UPDATE meta SET value = '1' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = openTemp(t, path, 4)
	if v := schemaVersion(t, s); v != len(migrations) {
		t.Errorf("reopened file at version %d, want %d", v, len(migrations))
	}
	if n := s.vectors.len(); n != 2 || !strings.HasPrefix(s.vectors.origin, "rebuilt") {
		t.Errorf("vector index after migration: %d vectors, %q; want 2, rebuilt", n, s.vectors.origin)
	}
	var docs int
	if err := s.reader.QueryRowContext(t.Context(), `SELECT doc FROM chunks_vocab WHERE term = 'munich'`).Scan(&docs); err != nil || docs != 1 {
		t.Errorf("chunks_vocab after migration: munich in %d chunks, %v; want 1", docs, err)
	}
	var vectors int
	if err := s.reader.QueryRowContext(t.Context(), `SELECT count(embedding) FROM relations`).Scan(&vectors); err != nil {
		t.Errorf("relations.embedding after migration: %v", err)
	}
	checkGraphCounts(t, s) // the supports and mention counts of the relation and entities fill put
	var supported int
	if err := s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM relations WHERE support = 1`).Scan(&supported); err != nil || supported != 1 {
		t.Errorf("relations.support after migration: %d relations supported once, %v; want 1", supported, err)
	}
	var replacing, staged int
	err := s.reader.QueryRowContext(t.Context(), `SELECT (SELECT count(*) FROM documents WHERE replaces <> ''),
		(SELECT count(staged) FROM chunks)`).Scan(&replacing, &staged)
	if err != nil || replacing != 0 || staged != 0 {
		t.Errorf("documents.replaces and chunks.staged after migration: %d %d, %v; want 0 0", replacing, staged, err)
	}
	var paged int
	if err := s.reader.QueryRowContext(t.Context(), `SELECT count(*) FROM chunks WHERE page <> 0`).Scan(&paged); err != nil || paged != 0 {
		t.Errorf("chunks.page after migration: %d chunks with a page, %v; want 0 (no page known)", paged, err)
	}
	if cs, err := s.Communities(t.Context()); err != nil || len(cs) != 0 {
		t.Errorf("communities after migration: %d, %v; want none until they are computed", len(cs), err)
	}
	if es, err := s.Edits(t.Context(), graphrag.EditQuery{}); err != nil || len(es) != 0 {
		t.Errorf("edits after migration: %d, %v; want none", len(es), err)
	}
	// A conversation from before owners is kept, without one: an admin's scope sees it, an account's not.
	if c, _, err := s.Conversation(t.Context(), graphrag.ConversationScope{Owner: "a1", Unowned: true}, "c-old"); err != nil || c.Owner != "" {
		t.Errorf("conversation after migration: %+v, %v; want it kept without an owner", c, err)
	}
	if cs, err := s.Conversations(t.Context(), graphrag.ConversationScope{Owner: "a1"}); err != nil || len(cs) != 0 {
		t.Errorf("an account's conversations after migration: %d, %v; want none (the old one has no owner)", len(cs), err)
	}
}

func TestRefuseANewerVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openTemp(t, path, 4)
	if _, err := s.writer.ExecContext(t.Context(), `UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err := Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed"}, nil)
	if err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Errorf("Open of a newer file: %v, want a refusal naming version 99", err)
	}
}
