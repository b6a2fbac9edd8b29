package sqlite

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// smallDisk mounts a tmpfs of size (root on Linux only) and returns its directory; it is unmounted
// after everything else of the test is cleaned up.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("a full disk is made with a small tmpfs, which needs root on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk stores documents until the disk is full, then takes the last bytes with a filler file.
func fillDisk(t *testing.T, s *Store, dir string) int {
	t.Helper()
	ctx := t.Context()
	stored := 0
	for i := 0; ; i++ {
		src := make([]byte, 192<<10)
		rand.Read(src)
		id := fmt.Sprintf("d%04d", i)
		_, _, err := s.PutDocument(ctx, graphrag.Document{ID: id, Name: id + ".txt"}, src)
		if err == nil {
			err = s.PutChunks(ctx, id, []graphrag.Chunk{{ID: id + "-0", Text: fmt.Sprintf("passage %d about Munich and Delhi", i)}})
		}
		if isFull(err) {
			break
		}
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		stored++
	}
	filler, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil && !errors.Is(err, syscall.ENOSPC) {
		t.Fatal(err)
	}
	if filler != nil {
		for _, err := filler.Write(make([]byte, 4096)); err == nil; _, err = filler.Write(make([]byte, 4096)) {
		}
		filler.Close()
	}
	if free, _ := diskFree(dir); free > 0 {
		t.Fatalf("the disk still has %d bytes free", free)
	}
	return stored
}

// Issue 21, item 6: on a full disk the status page said the store was OK, and deleting failed (500) for
// half the documents, so the user could not free space. Now the space check fails, and every delete
// goes through: the reserve kept beside the file is given up for them.
func TestDeletesWorkOnAFullDisk(t *testing.T) {
	dir := smallDisk(t, "24m")
	path := filepath.Join(dir, "hopwise.db")
	s, err := Open(t.Context(), path, Options{EmbedDim: 4, EmbedModel: "test-embed", ReserveBytes: 2 << 20, MinFreeBytes: 1 << 20}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if st, err := os.Stat(path + ".reserve"); err != nil || st.Size() != 2<<20 {
		t.Fatalf("reserve: %v", err)
	}
	if c := checkNamed(t, s, "disk space"); !c.OK {
		t.Errorf("disk space before filling: %+v", c)
	}
	stored := fillDisk(t, s, dir)
	if stored < 20 {
		t.Fatalf("only %d documents fit", stored)
	}
	if c := checkNamed(t, s, "disk space"); c.OK {
		t.Errorf("disk space on a full disk: %+v", c)
	}
	docs, err := s.Documents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, d := range docs {
		if err := s.DeleteDocument(t.Context(), d.ID); err != nil {
			failed++
			t.Logf("delete %s: %v", d.ID, err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d deletes failed on the full disk", failed, len(docs))
	}
	if left, _ := s.Documents(t.Context()); len(left) != 0 {
		t.Errorf("%d documents left", len(left))
	}
	// The room freed inside the file takes new documents, and the check says so.
	if _, _, err := s.PutDocument(t.Context(), graphrag.Document{ID: "new", Name: "new.txt"}, make([]byte, 16<<10)); err != nil {
		t.Errorf("upload after the deletes: %v", err)
	}
	if c := checkNamed(t, s, "disk space"); !c.OK {
		t.Errorf("disk space after the deletes: %+v", c)
	}
	var result string
	if err := s.reader.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&result); err != nil || result != "ok" {
		t.Errorf("integrity_check = %q, %v", result, err)
	}
}

// Without the reserve the same deletes fail: the fault is real, and the reserve is what fixes it.
func TestDeletesOnAFullDiskNeedTheReserve(t *testing.T) {
	dir := smallDisk(t, "24m")
	s, err := Open(t.Context(), filepath.Join(dir, "hopwise.db"), Options{EmbedDim: 4, EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fillDisk(t, s, dir)
	docs, _ := s.Documents(t.Context())
	failed := 0
	for _, d := range docs {
		if err := s.DeleteDocument(t.Context(), d.ID); isFull(err) {
			failed++
		}
	}
	t.Logf("%d of %d deletes failed without a reserve", failed, len(docs))
	if failed == 0 {
		t.Error("every delete passed on a full disk without a reserve: the full-disk test proves nothing")
	}
}
