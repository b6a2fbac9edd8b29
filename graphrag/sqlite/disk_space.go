package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// The reserve `hopwise serve` keeps (Options.ReserveBytes) and the default of Options.MinFreeBytes.
const (
	DefaultReserveBytes = 32 << 20
	DefaultMinFreeBytes = 64 << 20
)

// reservePath is the file kept beside the store so that a full disk can be given room for deletes.
func (s *Store) reservePath() string { return s.path + ".reserve" }

// keepReserve writes the reserve file when it is missing and the disk has room for it with some to
// spare: a delete on a full disk removes it first (DeleteDocument), so deleting always works.
func (s *Store) keepReserve() {
	if s.reserve <= 0 {
		return
	}
	if st, err := os.Stat(s.reservePath()); err == nil && st.Size() >= s.reserve {
		return
	}
	if free, ok := diskFree(filepath.Dir(s.path)); !ok || free < 2*s.reserve {
		return
	}
	f, err := os.OpenFile(s.reservePath(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		s.logger.Warn("sqlite: cannot write the space reserve", "path", s.reservePath(), "err", err)
		return
	}
	_, err = f.Write(make([]byte, s.reserve)) // written, not sparse: the blocks must really be taken
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(s.reservePath())
		s.logger.Warn("sqlite: cannot write the space reserve", "path", s.reservePath(), "err", err)
	}
}

// releaseReserve frees the reserve's room and reports whether there was any.
func (s *Store) releaseReserve() bool {
	err := os.Remove(s.reservePath())
	if err == nil {
		s.logger.Warn("sqlite: the disk is full; the space reserve was released so the delete can go through", "path", s.path)
	}
	return err == nil
}

// isFull reports SQLite's "database or disk is full" (SQLITE_FULL).
func isFull(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		return coded.Code()&0xff == sqlite3.SQLITE_FULL
	}
	return err != nil && strings.Contains(err.Error(), "disk is full")
}

// noteWrite remembers whether the last write failed for lack of space.
func (s *Store) noteWrite(err error) {
	switch {
	case err == nil:
		s.fullAt.Store(nil)
	case isFull(err):
		now := time.Now()
		s.fullAt.Store(&now)
	}
}

// spaceCheck reports the room left to write: free space on the disk, plus free pages inside the file
// (what deletes freed, which Hopwise reuses), and whether the last write failed for lack of space.
func (s *Store) spaceCheck(ctx context.Context) Check {
	c := Check{Name: "disk space", OK: true}
	free, known := diskFree(filepath.Dir(s.path))
	var pages, pageSize int64
	_ = s.reader.QueryRowContext(ctx, `SELECT freelist_count, page_size FROM pragma_freelist_count(), pragma_page_size()`).Scan(&pages, &pageSize)
	inside := pages * pageSize
	switch {
	case !known:
		c.Detail = "free disk space unknown on this system"
	default:
		c.Detail = fmt.Sprintf("%s free on the disk of %s", bytesText(free), filepath.Dir(s.path))
		if free+inside < s.minFree {
			c.OK = false
			c.Detail += fmt.Sprintf(", under the %s Hopwise needs to keep working: delete documents or free the disk", bytesText(s.minFree))
		}
	}
	if inside > 0 {
		c.Detail += fmt.Sprintf("; %s free inside the store file", bytesText(inside))
	}
	if at := s.fullAt.Load(); at != nil {
		c.OK = false
		c.Detail = fmt.Sprintf("a write failed at %s because the disk is full (%s)", at.Format(time.TimeOnly), c.Detail)
	}
	return c
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	default:
		return fmt.Sprintf("%d KB", n>>10)
	}
}
