package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestIngestReportsEachFileAndFailsAlone: a folder with one broken file among good ones ingests the good
// ones, names the broken one with its reason, and exits non-zero.
func TestIngestReportsEachFileAndFailsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"tips.md":    "# Tips\n\nThe S-Bahn lines S1 and S8 connect Munich Airport with the central station.\n",
		"notes.txt":  "Lena Vogt founded Nexa AI in Munich.\n",
		"broken.pdf": "%PDF-1.4 not really a pdf",
		"photo.png":  "\x89PNG\r\n\x1a\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := hopwiseCmd(context.Background(), bin, t.TempDir(), model.URL(), "ingest", dir).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"done  " + filepath.Join(dir, "notes.txt"), "done  " + filepath.Join(dir, "tips.md"),
		"FAIL  " + filepath.Join(dir, "broken.pdf"), "skip  " + filepath.Join(dir, "photo.png"), "1 of 3 file(s) or page(s) failed"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestIngestTwoThousandFiles: one call over 2,000 files, more than the ingest queue ever held, reports every
// file done and ends; the store agrees. The deadline turns a hang into a failure: 35 s at 8eb255b, 75 s
// at 73e0093 (ingest leases, one resolution at a time), 110 s at 58259e7 on a busy machine (issue 19).
func TestIngestTwoThousandFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	const n = 2000
	dir, data := writeNotes(t, n), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := hopwiseCmd(ctx, bin, data, model.URL(), "ingest", dir)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("ingest of %d files: %s", n, time.Since(start).Round(time.Millisecond))
	if ctx.Err() != nil {
		t.Fatalf("ingest did not end within the deadline (hung); stdout so far:\n%s", tail(stdout.String(), 20))
	}
	if err != nil {
		t.Fatalf("ingest: %v\n%s\n%s", err, tail(stdout.String(), 20), tail(stderr.String(), 20))
	}
	if done := countLines(stdout.String(), "done  "); done != n {
		t.Errorf("%d files reported done, want %d:\n%s", done, n, tail(stdout.String(), 20))
	}
	notDone := 0
	for _, d := range docsOf(t, bin, data, model.URL()) {
		if d.Status != graphrag.StatusDone {
			notDone++
		}
	}
	if notDone > 0 {
		t.Errorf("%d documents are not done in the store", notDone)
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestIngestEndsWhenProgressOverflows: the command is held on its first line of output while every job runs
// to its end, so its ~420 progress events (7 a document) overflow the subscription's 256 slots and the
// oldest, the final events of the first documents to finish among them, are dropped. Once released it must
// still report every file and end.
func TestIngestEndsWhenProgressOverflows(t *testing.T) {
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	const n = 60
	dir, data := writeNotes(t, n), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	stdout, stderr := &heldWriter{release: make(chan struct{})}, &heldWriter{}
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"ingest", "--data-dir", data,
			"--llm-base-url", model.URL(), "--embed-base-url=", "--llm-model", "test", "--embed-model", "test-embed",
			"--embed-dim", "64", "--neo4j-uri=", "--log-level", "warn", "--llm-retries", "0", dir}, nil, stdout, stderr)
	}()
	waitDocsDone(ctx, t, filepath.Join(data, "hopwise.db"), n)
	close(stdout.release)
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit status %d:\n%s\n%s", code, tail(stdout.String(), 10), tail(stderr.String(), 10))
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("every document is done but the command still waits (dropped events); it printed:\n%s", tail(stdout.String(), 10))
	}
	if done := countLines(stdout.String(), "done  "); done != n {
		t.Errorf("%d files reported done, want %d:\n%s", done, n, tail(stdout.String(), 20))
	}
}

// heldWriter collects what is written; with release set, every write waits until release is closed.
type heldWriter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     strings.Builder
}

func (w *heldWriter) Write(p []byte) (int, error) {
	if w.release != nil {
		<-w.release
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *heldWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// waitDocsDone polls the store file until n documents are done.
func waitDocsDone(ctx context.Context, t *testing.T, path string, n int) {
	t.Helper()
	for {
		var done int
		if db, err := sql.Open("sqlite", "file:"+path+"?mode=ro"); err == nil {
			_ = db.QueryRowContext(ctx, `SELECT count(*) FROM documents WHERE status = 'done'`).Scan(&done)
			db.Close()
		}
		if done == n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d of %d documents done before the deadline", done, n)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// writeNotes writes n small distinct text files into a new folder.
func writeNotes(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		text := fmt.Sprintf("Note %d: Lena Vogt met Arjun Mehta in Munich on day %d.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%04d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func countLines(s, prefix string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}
