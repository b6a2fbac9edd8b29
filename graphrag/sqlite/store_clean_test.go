package sqlite

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// checkEveryFile makes Open treat every file as large enough to skip its check after a clean close, for
// the test.
func checkEveryFile(t *testing.T) {
	t.Helper()
	old := checkAtOpenBelow
	checkAtOpenBelow = 0
	t.Cleanup(func() { checkAtOpenBelow = old })
}

// closedStore is a store file at a new path with 40 documents, closed cleanly.
func closedStore(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hopwise.db")
	s := openStore(t, path, 4)
	for i := range 40 {
		fill(t, s, fmt.Sprintf("doc-%02d.txt", i))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cleanMarkPath(path)); err != nil {
		t.Fatalf("no clean-close mark after Close: %v", err)
	}
	return path
}

// checkRan reports whether Open ran quick_check over the file.
func checkRan(s *Store) bool { return s.state.quick != "" }

// Issue 19: opening a large store ran PRAGMA quick_check over the whole file (32 s at 100k passages on
// the loaded machine). After a clean close the file is as SQLite left it: Open skips the check, says so
// on the status page, and finds everything.
func TestCleanCloseSkipsTheCheck(t *testing.T) {
	checkEveryFile(t)
	path := closedStore(t)
	s := openStore(t, path, 4)
	if checkRan(s) {
		t.Errorf("Open ran quick_check (%q) on a cleanly closed, unchanged file", s.state.quick)
	}
	c := checkNamed(t, s, "store integrity")
	if !c.OK || !strings.Contains(c.Detail, "skipped: closed cleanly") || strings.Contains(c.Detail, "background") {
		t.Errorf("store integrity after a clean open: %+v", c)
	}
	if _, err := os.Stat(cleanMarkPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the clean-close mark is still there while the store is open (%v): a crash now would leave it", err)
	}
	st, err := s.Stats(t.Context())
	if err != nil || st.Documents != 40 {
		t.Errorf("after a clean open: %d documents, %v", st.Documents, err)
	}
	fill(t, s, "one-more.txt")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The mark carries the time of the last whole check, not of the close.
	var mark cleanMark
	b, err := os.ReadFile(cleanMarkPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &mark); err != nil {
		t.Fatal(err)
	}
	if mark.Checked.IsZero() || !mark.Checked.Before(mark.Closed) {
		t.Errorf("the mark's last check %v, close %v", mark.Checked, mark.Closed)
	}
	again := openTemp(t, path, 4)
	if checkRan(again) {
		t.Error("Open ran quick_check after the second clean close")
	}
}

// A store that was not closed (the process killed) leaves no mark, and one written after the mark by
// someone else no longer matches it: Open checks both.
func TestUncleanStopRunsTheCheck(t *testing.T) {
	checkEveryFile(t)
	path := closedStore(t)
	s := openStore(t, path, 4)
	fill(t, s, "written-before-the-kill.txt")
	crash(t, s)
	again := openStore(t, path, 4)
	if !checkRan(again) || again.state.quick != "ok" {
		t.Errorf("Open after an unclean stop: quick_check %q", again.state.quick)
	}
	if c := checkNamed(t, again, "store integrity"); !c.OK || !strings.Contains(c.Detail, "quick_check at start: ok") {
		t.Errorf("store integrity after an unclean stop: %+v", c)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}

	// Another program writes into the cleanly closed file.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE documents SET title = 'edited elsewhere' WHERE rowid = 1`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(cleanMarkPath(path)); err != nil {
		t.Fatalf("the mark of the clean close is gone: %v", err)
	}
	changed := openTemp(t, path, 4)
	if !checkRan(changed) {
		t.Error("Open skipped quick_check of a file another program wrote after the clean close")
	}
}

// Issue 21, item 5 with a clean close before the damage: a file whose last pages were overwritten
// after Hopwise closed it (a torn copy or restore) is checked and refused, also when whoever wrote it
// set its modification time back.
func TestDamageAfterACleanCloseIsRefused(t *testing.T) {
	checkEveryFile(t)
	for _, keepTime := range []bool{false, true} {
		t.Run(fmt.Sprintf("keepTime=%v", keepTime), func(t *testing.T) {
			path := closedStore(t)
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			overwriteLastPages(t, path)
			if keepTime {
				if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
					t.Fatal(err)
				}
			}
			_, err = Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed"}, slog.New(slog.DiscardHandler))
			if !errors.Is(err, ErrDamaged) {
				t.Fatalf("Open of a file damaged after its clean close: %v, want ErrDamaged", err)
			}
			if _, err := os.Stat(cleanMarkPath(path)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused file kept a clean-close mark: %v", err)
			}
		})
	}
}

// overwriteLastPages overwrites the last three pages of the file in place, as a torn copy leaves them.
func overwriteLastPages(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	junk := make([]byte, 3*page)
	for i := range junk {
		junk[i] = byte(i*31 + 7)
	}
	if _, err := f.WriteAt(junk, fi.Size()-int64(len(junk))); err != nil {
		t.Fatal(err)
	}
}

// What the file system cannot see (a disk that flips bits under an unchanged file; here the mark is
// written again for the damaged file) the check in the background finds, once the last whole check is
// older than recheckAfter: the status check fails, writes are refused, and the file gets no clean mark,
// so that the next Open checks it and refuses it.
func TestBackgroundCheckFindsDamageUnderAnUnchangedFile(t *testing.T) {
	checkEveryFile(t)
	path := closedStore(t)
	b, err := os.ReadFile(cleanMarkPath(path))
	if err != nil {
		t.Fatal(err)
	}
	var old cleanMark
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	overwriteLastPages(t, path)
	rotten, err := markOf(path, old.Checked.Add(-recheckAfter-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	rotten.Closed = old.Closed
	b, _ = json.Marshal(rotten)
	if err := os.WriteFile(cleanMarkPath(path), b, 0o600); err != nil {
		t.Fatal(err)
	}

	s := openStore(t, path, 4)
	if checkRan(s) {
		t.Fatal("Open ran quick_check: the mark did not match")
	}
	waitForBackgroundCheck(t, s)
	c := checkNamed(t, s, "store integrity")
	if c.OK || !strings.Contains(c.Detail, "in the background") || !strings.Contains(c.Detail, "damaged") {
		t.Errorf("store integrity after the check in the background found damage: %+v", c)
	}
	doc := graphrag.Document{ID: "after-the-damage", Name: "after.txt"}
	if _, _, err := s.PutDocument(t.Context(), doc, []byte("written into a damaged file")); !errors.Is(err, ErrDamaged) {
		t.Errorf("a write after the damage was found: %v, want ErrDamaged", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cleanMarkPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a damaged file got a clean-close mark: %v", err)
	}
	if _, err := Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed"}, nil); !errors.Is(err, ErrDamaged) {
		t.Errorf("Open after the damage was found: %v, want ErrDamaged", err)
	}
}

// A sound file last checked long ago is checked again in the background after a clean open, and the
// status page says so; the next mark carries that check's time.
func TestBackgroundCheckOfASoundFile(t *testing.T) {
	checkEveryFile(t)
	old := recheckAfter
	recheckAfter = 0
	t.Cleanup(func() { recheckAfter = old })
	path := closedStore(t)
	s := openStore(t, path, 4)
	if checkRan(s) {
		t.Fatal("Open ran quick_check on a cleanly closed file")
	}
	before := s.integrity.skipped.Checked
	waitForBackgroundCheck(t, s)
	if c := checkNamed(t, s, "store integrity"); !c.OK || !strings.Contains(c.Detail, "in the background: ok") {
		t.Errorf("store integrity after the check in the background: %+v", c)
	}
	fill(t, s, "after-the-check.txt")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cleanMarkPath(path))
	if err != nil {
		t.Fatal(err)
	}
	var mark cleanMark
	if err := json.Unmarshal(b, &mark); err != nil {
		t.Fatal(err)
	}
	if !mark.Checked.After(before) {
		t.Errorf("the mark's last check %v, want after the check in the background (the previous was %v)", mark.Checked, before)
	}
}

// waitForBackgroundCheck waits, up to a minute, for the check in the background to end.
func waitForBackgroundCheck(t *testing.T, s *Store) {
	t.Helper()
	s.integrity.mu.Lock()
	finished := s.integrity.finished
	s.integrity.mu.Unlock()
	if finished == nil {
		t.Fatal("no check runs in the background")
	}
	select {
	case <-finished:
	case <-time.After(time.Minute):
		t.Fatal("the check in the background did not end in a minute")
	}
}

// Closing a store while its check runs in the background stops the check and leaves the mark with the
// last whole check it had.
func TestCloseStopsTheBackgroundCheck(t *testing.T) {
	checkEveryFile(t)
	old := recheckAfter
	recheckAfter = 0
	t.Cleanup(func() { recheckAfter = old })
	path := closedStore(t)
	s := openStore(t, path, 4)
	start := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Close took %v", took)
	}
	if _, err := os.Stat(cleanMarkPath(path)); err != nil {
		t.Errorf("no mark after closing a sound store: %v", err)
	}
}
