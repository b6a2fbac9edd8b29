package sqlite

import (
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

func checkNamed(t *testing.T, s *Store, name string) Check {
	t.Helper()
	for _, c := range s.Checks(t.Context()) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no %q check in %+v", name, s.Checks(t.Context()))
	return Check{}
}

// Issue 21, item 5: a 0-byte file (a failed copy, a full disk at the wrong moment) was migrated as a new
// store, and the status page said OK with every document gone. It is refused; Force opens it and the
// check says so.
func TestEmptyFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(t.Context(), path, Options{EmbedDim: 4}, nil)
	if !errors.Is(err, ErrEmptyFile) {
		t.Fatalf("Open of an empty file: %v, want ErrEmptyFile", err)
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Errorf("the refused file was written: %d bytes", st.Size())
	}
	s, err := Open(t.Context(), path, Options{EmbedDim: 4, Force: true}, nil)
	if err != nil {
		t.Fatalf("forced: %v", err)
	}
	defer s.Close()
	if c := checkNamed(t, s, "store file"); c.OK || !strings.Contains(c.Detail, "empty") {
		t.Errorf("store file check after a forced open: %+v", c)
	}
}

// A SQLite file of another program is not migrated into.
func TestFileWithoutHopwiseSchemaIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos (name) VALUES ('holiday')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(t.Context(), path, Options{EmbedDim: 4}, nil); !errors.Is(err, ErrNoSchema) {
		t.Fatalf("Open: %v, want ErrNoSchema", err)
	}
	// A file without any table is what a first start killed before its first migration leaves: new.
	empty := filepath.Join(t.TempDir(), "hopwise.db")
	db, _ = sql.Open("sqlite", empty+"?_pragma=journal_mode(WAL)")
	if _, err := db.Exec(`CREATE TABLE x (a); DROP TABLE x`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := openTemp(t, empty, 4)
	if c := checkNamed(t, s, "store integrity"); !c.OK {
		t.Errorf("a table-less file: %+v", c)
	}
}

// Issue 21, item 5: a file whose last pages were overwritten started and reported OK although
// integrity_check fails. Open runs quick_check and refuses it; forced, the status check fails.
func TestDamagedFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openTemp(t, path, 4)
	for i := range 40 {
		fill(t, s, fmt.Sprintf("doc-%02d.txt", i))
	}
	if c := checkNamed(t, s, "store integrity"); !c.OK || c.Detail != "a new file: nothing to check" {
		t.Errorf("a new store: %+v", c)
	}
	s.Close()
	again := openTemp(t, path, 4)
	if c := checkNamed(t, again, "store integrity"); !c.OK || !strings.Contains(c.Detail, "quick_check at start: ok") {
		t.Errorf("a sound store reopened: %+v", c)
	}
	again.Close()

	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	for i := len(b) - 3*page; i < len(b); i++ { // the last three pages, as a torn copy leaves them
		b[i] = byte(i*31 + 7)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed"}, slog.New(slog.DiscardHandler))
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open of a damaged file: %v, want ErrDamaged", err)
	}
	// Forced, it opens with failing checks, unless the damage is in what Open must read (here the
	// vectors), which fails then naming the damage.
	forced, err := Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed", Force: true}, nil)
	if err != nil {
		if errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("forced: %v, want the damage met reading the vectors", err)
		}
		return
	}
	defer forced.Close()
	if c := checkNamed(t, forced, "store integrity"); c.OK {
		t.Errorf("integrity check of a damaged file: %+v", c)
	}
	if c := checkNamed(t, forced, "store file"); c.OK || !strings.Contains(c.Detail, "forced") {
		t.Errorf("store file check: %+v", c)
	}
}

// Issue 21, item 6: the raw bytes of documents that failed to parse were kept. They are deleted with
// the failure, and uploading the same file again brings them back.
func TestFailedDocumentLosesItsBytes(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	ctx := t.Context()
	src := []byte("\x89PNG not a text file")
	doc := graphrag.Document{ID: "d1", Name: "a.txt"}
	if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
		t.Fatal(err)
	}
	if err := s.SetDocumentStatus(ctx, "d1", graphrag.StatusParsing, "", graphrag.DocumentMeta{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DocumentSource(ctx, "d1"); err != nil {
		t.Fatalf("a document being read lost its bytes: %v", err)
	}
	if err := s.SetDocumentStatus(ctx, "d1", graphrag.StatusFailed, "looks binary", graphrag.DocumentMeta{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DocumentSource(ctx, "d1"); !errors.Is(err, graphrag.ErrNotFound) {
		t.Errorf("a failed document's bytes: %v, want ErrNotFound", err)
	}
	if _, created, err := s.PutDocument(ctx, doc, src); err != nil || created {
		t.Fatalf("upload again: created %v, %v", created, err)
	}
	if got, err := s.DocumentSource(ctx, "d1"); err != nil || string(got) != string(src) {
		t.Errorf("bytes after uploading again: %q, %v", got, err)
	}
}
