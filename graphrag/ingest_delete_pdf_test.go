package graphrag_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Deleting a document stops the PDF child reading it (the job's context reaches parse.Parse), so the
// delete answers at once instead of waiting for the whole read, up to the child's minute.
func TestDeleteDuringPDFParseDoesNotWait(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("finds the PDF child in /proc (Linux)")
	}
	env := newEnv(t)
	doc, _, err := env.ingester.Submit(context.Background(), "slow.pdf", strings.NewReader(slowPDF(400000)))
	if err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(30 * time.Second); child == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no PDF child started")
		}
		child = pdfChild(t)
	}
	start := time.Now()
	if err := env.ingester.Delete(context.Background(), doc.ID); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2500*time.Millisecond {
		t.Errorf("Delete took %v while the PDF child read the file (it needs seconds more), want it stopped at once", d)
	}
	if pdfChild(t) == child {
		t.Errorf("the PDF child %d still runs after the delete", child)
	}
	if s := env.stats(); s.Documents != 0 || s.Chunks != 0 {
		t.Errorf("after delete during parse: %+v, want empty", s)
	}
}

// pdfChild is the process ID of a PDF child of this process (0: none), found in /proc.
func pdfChild(t *testing.T) int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "\x00internal-parse-pdf\x00") {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(os.Getpid()) && fields[0] != "Z" {
			return pid
		}
	}
	return 0
}

// slowPDF is a valid one-page PDF whose content stream draws the same line n times, 45 bytes each: 400,000
// lines take the PDF reader seconds.
func slowPDF(n int) string {
	content := strings.Repeat("BT /F1 10 Tf 0 0 Td (hello world text) Tj ET\n", n)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.String()
}
