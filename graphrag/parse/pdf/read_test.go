package pdf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// blockLog is a Writer that logs each block on a line ("p3 h1 ...", "li0 ...", "para ...") and, past
// max bytes, takes no more.
type blockLog struct {
	b   strings.Builder
	max int
	err error
}

func (l *blockLog) add(format string, args ...any) {
	if l.err != nil {
		return
	}
	fmt.Fprintf(&l.b, format+"\n", args...)
	if l.max > 0 && l.b.Len() > l.max {
		l.err = fmt.Errorf("%w: over %d bytes", parseerr.ErrTooLarge, l.max)
	}
}

func (l *blockLog) Page(n int)                      { l.add("page %d", n) }
func (l *blockLog) Heading(level int, text string)  { l.add("h%d %s", level, text) }
func (l *blockLog) ListItem(depth int, text string) { l.add("li%d %s", depth, text) }
func (l *blockLog) Paragraph(text string)           { l.add("para %s", text) }
func (l *blockLog) Err() error                      { return l.err }
func (l *blockLog) String() string                  { return l.b.String() }

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRead: the sample PDF's pages, headings (by font size), list items and paragraphs reach the Writer
// in order, each page announced before its first block, and the document gives its page count; fewer
// pages allowed than it has is ErrTooLarge.
func TestRead(t *testing.T) {
	var w blockLog
	doc, err := Read(fixture(t, "sample.pdf"), Limits{MaxInflated: 1 << 20, MaxPages: 10}, &w)
	if err != nil {
		t.Fatal(err)
	}
	got := w.String()
	if !strings.HasPrefix(got, "page 1\n") || !strings.Contains(got, "\nh1 ") || !strings.Contains(got, "\npara ") {
		t.Errorf("blocks:\n%s\nwant page 1 first, then a heading and paragraphs", got)
	}
	if want := fmt.Sprintf("page %d\n", doc.Pages); doc.Pages < 1 || !strings.Contains(got, want) {
		t.Errorf("Pages = %d; blocks:\n%s", doc.Pages, got)
	}
	if _, err := Read(fixture(t, "sample.pdf"), Limits{MaxInflated: 1 << 20, MaxPages: doc.Pages - 1}, &blockLog{}); !errors.Is(err, parseerr.ErrTooLarge) {
		t.Errorf("Read with MaxPages %d = %v, want ErrTooLarge", doc.Pages-1, err)
	}
}

// TestReadWithoutText: a PDF whose page draws no text is no error: nothing is written and Document gives
// its page (parse then calls it scanned). A writer that takes no more ends Read with its error.
func TestReadWithoutText(t *testing.T) {
	var w blockLog
	doc, err := Read(fixture(t, filepath.Join("bad", "no-text.pdf")), Limits{MaxInflated: 1 << 20, MaxPages: 10}, &w)
	if err != nil || doc.Pages != 1 || w.String() != "" || doc.Title != "" {
		t.Fatalf("Read = %+v, %v, wrote %q; want 1 page, nothing written", doc, err, w.String())
	}
	if _, err := Read(fixture(t, "sample.pdf"), Limits{MaxInflated: 1 << 20, MaxPages: 10}, &blockLog{max: 8}); !errors.Is(err, parseerr.ErrTooLarge) {
		t.Errorf("Read into a full writer = %v, want its ErrTooLarge", err)
	}
}
