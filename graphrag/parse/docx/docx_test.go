package docx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// outline is a Writer that keeps a line per block and, given a cap, takes no more blocks than it.
type outline struct {
	lines []string
	cap   int
}

func (o *outline) Heading(level int, text string)  { o.line("%s %s", strings.Repeat("#", level), text) }
func (o *outline) Paragraph(text string)           { o.line("%s", strings.ReplaceAll(text, "\n", "/")) }
func (o *outline) ListItem(depth int, text string) { o.line("%d- %s", depth, text) }
func (o *outline) Table(rows [][]string)           { o.line("%d rows %q", len(rows), rows[0]) }

func (o *outline) line(format string, args ...any) {
	if o.Err() == nil {
		o.lines = append(o.lines, fmt.Sprintf(format, args...))
	}
}

func (o *outline) Err() error {
	if o.cap > 0 && len(o.lines) >= o.cap {
		return fmt.Errorf("%w: %d blocks", parseerr.ErrTooLarge, o.cap)
	}
	return nil
}

// fixtures are package parse's test files.
var fixtures = os.DirFS(filepath.Join("..", "testdata"))

// TestRead: the sample document's title style, localised heading style, paragraph with a tab and a line
// break, list items and table reach the Writer in order, a text box once, and the title is given back.
func TestRead(t *testing.T) {
	var o outline
	data, err := fs.ReadFile(fixtures, "sample.docx")
	if err == nil {
		var title string
		title, err = Read(data, 1<<20, &o)
		if title != "Airline staff handbook" {
			t.Errorf("title = %q", title)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(o.lines, "\n")
	for _, want := range []string{"# Airline staff handbook\n# Compensation\nAmounts depend on distance./See the table.\n0- 250 EUR up to 1500 km",
		"## Distances\n3 rows [\"from \" \"to \" \"km \"]"} {
		if !strings.Contains(got, want) {
			t.Errorf("blocks:\n%s\nwant them to hold\n%s", got, want)
		}
	}
	if strings.Count(got, "Boxed note.") != 1 {
		t.Errorf("the text box's text is not there once:\n%s", got)
	}
}

// TestReadErrors: bytes that are no archive, an archive without word/document.xml, a cap on inflated
// bytes and a Writer that takes no more end Read with their sentinel.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		max  int64
		o    *outline
		want error
	}{
		{"bad/not-a-zip.docx", 1 << 20, &outline{}, parseerr.ErrMalformed},
		{"bad/no-document.docx", 1 << 20, &outline{}, parseerr.ErrMalformed},
		{"sample.docx", 512, &outline{}, parseerr.ErrTooLarge},           // the inflated bytes' cap
		{"sample.docx", 1 << 20, &outline{cap: 2}, parseerr.ErrTooLarge}, // a full writer
	} {
		data, err := fs.ReadFile(fixtures, tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(data, tc.max, tc.o); !errors.Is(err, tc.want) {
			t.Errorf("%s (cap %d, writer %+v): err = %v, want %v", tc.file, tc.max, tc.o, err, tc.want)
		}
	}
}
