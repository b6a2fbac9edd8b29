package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// What Open refuses in an existing file unless Options.Force is set.
var (
	// ErrEmptyFile is a file of zero bytes with no write-ahead log: a failed copy or a disk that filled at
	// the wrong moment. Migrating it would start an empty store and every document would silently be gone.
	ErrEmptyFile = errors.New("the store file is empty (0 bytes)")
	// ErrNoSchema is a SQLite file with tables but none of Hopwise's: another program's database, or one
	// whose schema was lost.
	ErrNoSchema = errors.New("the store file holds no Hopwise schema")
	// ErrDamaged is a file that fails PRAGMA quick_check.
	ErrDamaged = errors.New("the store file is damaged (PRAGMA quick_check failed)")
)

// openState is what Open found, for the status page.
type openState struct {
	existed   bool
	forced    error // the refusal Force overrode
	quick     string
	quickTook time.Duration
}

// inspectFile refuses an empty existing file before SQLite opens it; it reports whether the file
// existed with content (or a write-ahead log holding it).
func inspectFile(path string, force bool) (existed bool, forced error, err error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil, nil
	case err != nil:
		return false, nil, err
	case st.Size() > 0:
		return true, nil, nil
	}
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return true, nil, nil // in WAL mode the data may all be in the log before the first checkpoint
	}
	if force {
		return false, ErrEmptyFile, nil
	}
	return false, nil, ErrEmptyFile
}

// checkExisting refuses a file with tables but no Hopwise schema, and one that fails quick_check; with
// force it records the refusal instead. A file without any table (a first start killed before its
// first migration committed) is a new store: nothing was in it.
func (s *Store) checkExisting(ctx context.Context, force bool) error {
	var tables, meta int
	err := s.reader.QueryRowContext(ctx, `SELECT count(*), count(*) FILTER (WHERE name = 'meta')
		FROM sqlite_master WHERE type = 'table'`).Scan(&tables, &meta)
	if err != nil && isCorrupt(err) {
		// the schema's own pages are damaged: the file fails quick_check as well
		s.state.quick = err.Error()
		if err := s.refuse(fmt.Errorf("%w: read the schema: %w", ErrDamaged, err), force); err != nil {
			return err
		}
	} else if err != nil {
		return fmt.Errorf("read the schema: %w", err)
	}
	if tables > 0 && meta == 0 {
		if err := s.refuse(fmt.Errorf("%w (%d tables of another program)", ErrNoSchema, tables), force); err != nil {
			return err
		}
	}
	if st, err := os.Stat(s.path); err == nil && st.Size() >= checkAtOpenBelow && s.state.forced == nil {
		mark, why := s.takeCleanMark()
		if why == "" {
			s.integrity.skip(mark)
			s.logger.Info("sqlite: PRAGMA quick_check skipped: the file was closed cleanly and is unchanged since",
				"path", s.path, "closed", mark.Closed, "last checked", mark.Checked)
			if time.Since(mark.Checked) > recheckAfter {
				s.checkLater = true
			}
			return nil
		}
		s.logger.Info("sqlite: checking the store file (PRAGMA quick_check) before opening it", "path", s.path,
			"why", why, "size", bytesText(st.Size()))
	} else {
		os.Remove(cleanMarkPath(s.path))
	}
	start := time.Now()
	problems, err := queryStrings(ctx, s.reader, `PRAGMA quick_check(20)`)
	s.state.quickTook = time.Since(start)
	if err != nil {
		s.state.quick = err.Error()
		return s.refuse(fmt.Errorf("%w: %w", ErrDamaged, err), force)
	}
	s.state.quick = strings.Join(problems, "; ")
	if s.state.quick != "ok" {
		return s.refuse(fmt.Errorf("%w: %s", ErrDamaged, s.state.quick), force)
	}
	s.integrity.foundSound()
	return nil
}

func (s *Store) refuse(err error, force bool) error {
	if !force {
		return err
	}
	s.logger.Warn("sqlite: opening the store file anyway (forced)", "path", s.path, "problem", err)
	s.state.forced = errors.Join(s.state.forced, err)
	return nil
}

// isCorrupt reports SQLite's "database disk image is malformed" (SQLITE_CORRUPT) and "file is not a
// database" (SQLITE_NOTADB).
func isCorrupt(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := coded.Code() & 0xff
		return c == sqlite3.SQLITE_CORRUPT || c == sqlite3.SQLITE_NOTADB
	}
	return strings.Contains(err.Error(), "malformed")
}

// Check is one thing the status page reports about the store.
type Check struct {
	Name   string
	OK     bool
	Detail string
}

// Checks reports the file as Open found it, its integrity check at start (or the clean close that let Open
// skip it, and the check in the background), and the room left to write.
func (s *Store) Checks(ctx context.Context) []Check {
	file := Check{Name: "store file", OK: s.state.forced == nil, Detail: "a new store"}
	if s.state.existed {
		file.Detail = "opened an existing store"
	}
	if s.state.forced != nil {
		file.Detail = "opened although " + s.state.forced.Error() + " (forced)"
	}
	integrity, skipped := s.backgroundIntegrity()
	if !skipped && !s.state.existed {
		integrity = Check{Name: "store integrity", OK: true, Detail: "a new file: nothing to check"}
	} else if !skipped {
		integrity = Check{Name: "store integrity"}
		integrity.OK = s.state.quick == "ok"
		integrity.Detail = fmt.Sprintf("PRAGMA quick_check at start: %s (%s)", s.state.quick, s.state.quickTook.Round(time.Millisecond))
	}
	return []Check{file, integrity, s.spaceCheck(ctx)}
}
