package sqlite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Open checks the whole file with PRAGMA quick_check, which reads every page: seconds at 100k passages,
// minutes at a million. The check is there for a file that is not what SQLite left: a crash or power loss
// mid-write, a torn copy or restore, another program writing into it, a disk that filled at the wrong
// moment. None of these can happen between a clean Close and the next Open without the file system
// seeing it, so Close records what the file system says of the closed file (size, modification and change
// times, device and inode) with digests of its first and last 64 KiB, in a mark beside it
// (cleanMarkPath). Open takes the mark away and skips the check when the file is still exactly so and has no
// write-ahead log left; anything else (no mark: an unclean stop, or a store of an older version; a file
// touched since; a log to replay) runs the check as before, and a file below checkAtOpenBelow is always
// checked at Open (it takes milliseconds). What a file system cannot see, a disk that flips bits under an
// unchanged file, the check in the background finds: it runs after a skipped check when the file was last
// found sound whole more than recheckAfter ago. If it finds damage, the status page's "store integrity"
// check fails and every write is refused (ErrDamaged), so that nothing is written into a damaged file
// and no clean mark is left for it: the next Open checks it and refuses it.

// cleanMarkPath is the clean-close mark of the store file at path.
func cleanMarkPath(path string) string { return path + ".clean" }

// checkAtOpenBelow is the file size below which Open always runs quick_check; recheckAfter is how long a
// file is trusted from its last whole check through clean closes before the background check runs again.
// Variables for tests.
var (
	checkAtOpenBelow int64 = 64 << 20
	recheckAfter           = 7 * 24 * time.Hour
)

// endBytes is how much of each end of the file the mark's digests cover.
const endBytes = 64 << 10

// cleanMark is what Close found of the closed file, and when the whole file was last found sound.
type cleanMark struct {
	Size        int64     `json:"size"`
	ModNanos    int64     `json:"mtime_ns"`
	ChangeNanos int64     `json:"ctime_ns"`
	Device      uint64    `json:"dev"`
	Inode       uint64    `json:"ino"`
	Head        string    `json:"head_sha256"`
	Tail        string    `json:"tail_sha256"`
	Closed      time.Time `json:"closed"`
	Checked     time.Time `json:"checked"`
}

// markOf describes the file at path as it is now, with checked as the time of its last whole check. It
// fails when the file cannot be read or its write-ahead log holds anything.
func markOf(path string, checked time.Time) (cleanMark, error) {
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		return cleanMark{}, fmt.Errorf("its write-ahead log holds %d bytes", wal.Size())
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return cleanMark{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return cleanMark{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return cleanMark{}, err
	}
	m := cleanMark{Size: fi.Size(), ModNanos: fi.ModTime().UnixNano(), Checked: checked.UTC()}
	m.Device, m.Inode, m.ChangeNanos = fileID(fi)
	digest := func(at int64) (string, error) {
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, at, endBytes)); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if m.Head, err = digest(0); err != nil {
		return cleanMark{}, err
	}
	if m.Tail, err = digest(max(0, m.Size-endBytes)); err != nil {
		return cleanMark{}, err
	}
	return m, nil
}

// sameFile reports whether b describes the file a describes, whatever their times of close and check.
func (a cleanMark) sameFile(b cleanMark) bool {
	a.Closed, a.Checked, b.Closed, b.Checked = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	return a == b
}

// takeCleanMark removes the mark of the store file and returns it when the file is still as that clean
// Close left it; otherwise it says why the file must be checked.
func (s *Store) takeCleanMark() (cleanMark, string) {
	markPath := cleanMarkPath(s.path)
	b, err := os.ReadFile(markPath)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return cleanMark{}, "not closed cleanly"
	case err != nil:
		return cleanMark{}, "the clean-close mark cannot be read: " + err.Error()
	}
	if err := os.Remove(markPath); err != nil {
		// a mark that stays could outlive a crash of this process: do not trust it
		return cleanMark{}, "the clean-close mark cannot be removed: " + err.Error()
	}
	var mark cleanMark
	if err := json.Unmarshal(b, &mark); err != nil {
		return cleanMark{}, "the clean-close mark is damaged"
	}
	now, err := markOf(s.path, mark.Checked)
	switch {
	case err != nil:
		return cleanMark{}, "closed cleanly, but " + err.Error()
	case !now.sameFile(mark):
		return cleanMark{}, "changed since it was closed cleanly"
	}
	return mark, ""
}

// leaveCleanMark records the closed file for the next Open, when this Store opened it, found or kept it
// sound and closed every connection; a file opened by force or found damaged gets none.
func (s *Store) leaveCleanMark() {
	checked, ok := s.integrity.sound()
	if !s.opened || s.state.forced != nil || !ok {
		return
	}
	mark, err := markOf(s.path, checked)
	if err != nil {
		s.logger.Debug("sqlite: no clean-close mark", "path", s.path, "why", err)
		return
	}
	mark.Closed = time.Now().UTC()
	b, err := json.Marshal(mark)
	if err != nil {
		return
	}
	tmp := cleanMarkPath(s.path) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		s.logger.Debug("sqlite: no clean-close mark", "path", s.path, "err", err)
		return
	}
	if err := os.Rename(tmp, cleanMarkPath(s.path)); err != nil {
		os.Remove(tmp)
		s.logger.Debug("sqlite: no clean-close mark", "path", s.path, "err", err)
	}
}

// integrity is what the store knows of its file's soundness: the check at Open, or the clean close that
// let Open skip it, and the check in the background.
type integrity struct {
	mu sync.Mutex
	// checked is when the whole file was last found sound (at Open, carried by the clean-close mark, or in
	// the background); zero when it never was.
	checked time.Time
	// skipped is the clean close that let Open skip the check (zero when Open ran it).
	skipped cleanMark
	// background: running since started, or done with result after took.
	started  time.Time
	running  bool
	result   string
	took     time.Duration
	damaged  error
	stop     context.CancelFunc
	finished chan struct{}
}

// sound is the time of the last whole check that found the file sound, and false once one found damage.
func (in *integrity) sound() (time.Time, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.checked, in.damaged == nil
}

// skip records that Open trusted the clean close of mark instead of checking.
func (in *integrity) skip(mark cleanMark) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.skipped, in.checked = mark, mark.Checked
}

// foundSound records a whole check that found the file sound now.
func (in *integrity) foundSound() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.checked = time.Now().UTC()
}

// checkInBackground runs quick_check over the whole file on one reader connection until it ends or the
// store closes; damage found fails the integrity check and refuses writes.
func (s *Store) checkInBackground() {
	in := &s.integrity
	ctx, cancel := context.WithCancel(context.Background())
	in.mu.Lock()
	in.started, in.running, in.stop, in.finished = time.Now(), true, cancel, make(chan struct{})
	done := in.finished
	in.mu.Unlock()
	s.logger.Info("sqlite: checking the store file in the background", "path", s.path,
		"last checked", in.skipped.Checked.Format(time.RFC3339))
	go func() {
		defer close(done)
		start := time.Now()
		problems, err := queryStrings(ctx, s.reader, `PRAGMA quick_check(20)`)
		result := strings.Join(problems, "; ")
		if err != nil {
			result = err.Error()
		}
		took := time.Since(start)
		stopped := ctx.Err() != nil
		in.mu.Lock()
		in.running, in.took = false, took
		if !stopped {
			in.result = result
			if result == "ok" {
				in.checked = time.Now().UTC()
			} else {
				in.damaged = fmt.Errorf("%w: %s", ErrDamaged, result)
			}
		}
		in.mu.Unlock()
		switch {
		case stopped:
			s.logger.Debug("sqlite: the check in the background stopped: the store closed", "path", s.path)
		case result == "ok":
			s.logger.Info("sqlite: the store file checked in the background: ok", "path", s.path, "took", took.Round(time.Millisecond))
		default:
			s.logger.Error("sqlite: the store file is damaged: writes are refused; stop Hopwise and restore a backup",
				"path", s.path, "problems", result)
		}
	}()
}

// stopBackgroundCheck ends the check in the background, if one runs, and waits for it.
func (s *Store) stopBackgroundCheck() {
	in := &s.integrity
	in.mu.Lock()
	stop, finished := in.stop, in.finished
	in.mu.Unlock()
	if stop != nil {
		stop()
		<-finished
	}
}

// writesRefused is the damage the background check found, unless the store was opened by force.
func (s *Store) writesRefused() error {
	if s.opt.Force {
		return nil
	}
	in := &s.integrity
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.damaged != nil {
		return fmt.Errorf("sqlite: writes are refused: %w (found in the background; restore a backup, or restart to see Open's check)", in.damaged)
	}
	return nil
}

// backgroundIntegrity is the "store integrity" check of an existing file whose check Open skipped, and
// false when Open ran the check (Checks reports that one).
func (s *Store) backgroundIntegrity() (Check, bool) {
	in := &s.integrity
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.skipped.Closed.IsZero() {
		return Check{}, false
	}
	c := Check{Name: "store integrity", OK: true}
	c.Detail = fmt.Sprintf("PRAGMA quick_check at start skipped: closed cleanly %s and unchanged since; last whole check ok %s",
		in.skipped.Closed.Format("2006-01-02 15:04 MST"), in.skipped.Checked.Format("2006-01-02 15:04 MST"))
	switch {
	case in.running:
		c.Detail += fmt.Sprintf("; PRAGMA quick_check running in the background since %s", in.started.Format("15:04:05"))
	case in.damaged != nil:
		c.OK = false
		c.Detail = fmt.Sprintf("PRAGMA quick_check in the background: %s (%s): the file is damaged, writes are refused; stop Hopwise and restore a backup",
			in.result, in.took.Round(time.Millisecond))
	case in.result != "":
		c.Detail += fmt.Sprintf("; PRAGMA quick_check in the background: %s (%s)", in.result, in.took.Round(time.Millisecond))
	}
	return c, true
}
