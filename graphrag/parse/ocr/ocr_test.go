package ocr

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

func tools(t *testing.T) Tools {
	t.Helper()
	tl, err := Detect()
	if err != nil {
		t.Skipf("%v (.ci/run installs them)", err)
	}
	if !strings.HasPrefix(tl.Version, "tesseract ") {
		t.Errorf("version %q", tl.Version)
	}
	return tl
}

func scanned(t *testing.T) []byte {
	data, err := os.ReadFile("testdata/scanned.pdf")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestPages(t *testing.T) {
	pages, err := Pages(context.Background(), tools(t), scanned(t), 2, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 || !strings.Contains(pages[0], "Delhi to Munich receive 600 EUR") || !strings.Contains(pages[1], "keep your boarding pass") {
		t.Errorf("pages = %q", pages)
	}
}

func TestPagesStops(t *testing.T) {
	tl := tools(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, err := Pages(ctx, tl, scanned(t), 2, 1<<20); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past the deadline: %v, want context.DeadlineExceeded", err)
	}
	if _, err := Pages(context.Background(), tl, scanned(t), 2, 20); !errors.Is(err, parseerr.ErrTooLarge) {
		t.Errorf("past the output cap: %v, want ErrTooLarge", err)
	}
	if _, err := Pages(context.Background(), tl, []byte("%PDF-1.4 broken"), 1, 1<<20); !errors.Is(err, parseerr.ErrMalformed) {
		t.Errorf("a broken PDF: %v, want ErrMalformed", err)
	}
	if _, err := Pages(context.Background(), Tools{}, scanned(t), 1, 1<<20); err == nil {
		t.Error("no tools: no error")
	}
}
