package parse

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/chunk"
)

func parseFixture(t *testing.T, path string) Parsed {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := Parse(context.Background(), filepath.Base(path), f, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestPPTXMarkdown(t *testing.T) {
	doc := parseFixture(t, "pptx/testdata/review.pptx")
	want := `# Slide 1: Quarterly review

Nexa AI, Q3 2026

## Notes

Welcome everyone.
Mention the Munich hub.

# Slide 2: Compensation

250 EUR up to 1,500 km
600 EUR beyond 3,500 km
whatever the airline

| From | To | km |
| --- | --- | --- |
| Munich | Delhi | 5,921 |

Grouped note & more

# Slide 3: Questions?`
	if doc.Markdown != want || doc.Title != "Quarterly review, Q3 2026" || doc.Format != "pptx" {
		t.Errorf("doc = %q %q\n%s\nwant\n%s", doc.Title, doc.Format, doc.Markdown, want)
	}
	for _, tt := range []struct {
		text string
		page int
	}{{"# Slide 1", 1}, {"Welcome", 1}, {"# Slide 2", 2}, {"| Munich | Delhi", 2}, {"# Slide 3", 3}} {
		if got := doc.PageAt(strings.Index(doc.Markdown, tt.text)); got != tt.page {
			t.Errorf("%q is on slide %d, want %d", tt.text, got, tt.page)
		}
	}
}

// TestXLSXChunksRepeatTheHeader: a sheet is one table; cut into chunks, each
// chunk starts with the header row and lies on the sheet's page.
func TestXLSXChunksRepeatTheHeader(t *testing.T) {
	doc := parseFixture(t, "xlsx/testdata/fleet.xlsx")
	wantStart := "# Fleet\n\n| Aircraft | Seats | Range (km) |\n| --- | --- | --- |\n| A320neo | 180 | 6,300 |\n| A350-900 | 293 | 15,000 |\n| B787-9 \\| long haul widebody | 296 | 14,140 |\n\n# Routes\n\n| From | To | Distance (km) | Compensation (EUR) |\n| --- | --- | --- | --- |\n| Munich | City 00 | 500 | 250 |\n"
	if !strings.HasPrefix(doc.Markdown, wantStart) || !strings.HasSuffix(doc.Markdown, "| Munich | City 79 | 8400 | 600 |") {
		t.Errorf("markdown =\n%s", doc.Markdown)
	}
	if want := []Page{{1, 0}, {3, strings.Index(doc.Markdown, "\n\n# Routes")}}; !reflect.DeepEqual(doc.Pages, want) {
		t.Errorf("pages = %+v, want %+v", doc.Pages, want)
	}
	pieces, err := chunk.Split(context.Background(), doc.Title, doc.Markdown, chunk.Options{MaxTokens: 150})
	if err != nil {
		t.Fatal(err)
	}
	routes := 0
	for _, p := range pieces {
		if p.Section[0] != "Routes" {
			if got := doc.PageAt(p.Start); got != 1 {
				t.Errorf("chunk %d (%v) on page %d, want 1", p.Ordinal, p.Section, got)
			}
			continue
		}
		routes++
		if !strings.HasPrefix(p.Body, "| From | To | Distance (km) | Compensation (EUR) |\n| --- |") {
			t.Errorf("chunk %d does not start with the header row:\n%s", p.Ordinal, p.Body)
		}
		if got := doc.PageAt(p.Start); got != 3 {
			t.Errorf("chunk %d of Routes on page %d, want 3", p.Ordinal, got)
		}
	}
	if routes < 3 {
		t.Errorf("Routes in %d chunks, want it split into 3 or more", routes)
	}
}

// TestCSVChunksRepeatTheHeader: a long CSV is one table; each of its chunks starts with the header row.
func TestCSVChunksRepeatTheHeader(t *testing.T) {
	var b strings.Builder
	b.WriteString("flight;from;to;distance km\n")
	for i := range 200 {
		fmt.Fprintf(&b, "LH%d;Munich;City %d;%d\n", 700+i, i, 500+37*i)
	}
	doc, err := parseString(t, "flights.csv", b.String())
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := chunk.Split(context.Background(), doc.Title, doc.Markdown, chunk.Options{MaxTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) < 4 {
		t.Fatalf("%d chunks, want the table split", len(pieces))
	}
	for _, p := range pieces {
		if !strings.HasPrefix(p.Body, "| flight | from | to | distance km |\n| --- | --- | --- | --- |\n| LH") {
			t.Errorf("chunk %d does not start with the header:\n%s", p.Ordinal, p.Body)
		}
	}
	if last := pieces[len(pieces)-1].Body; !strings.HasSuffix(last, "| LH899 | Munich | City 199 | 7863 |") {
		t.Errorf("last chunk ends %q", last[max(0, len(last)-60):])
	}
}

func TestCSVMarkdown(t *testing.T) {
	doc := parseFixture(t, "csvtable/testdata/distances.csv")
	want := "| From | To | Distance (km) | Note |\n| --- | --- | --- | --- |\n| Munich | Delhi | 5921 | long haul; 600 EUR |\n| Munich | Frankfurt am Main | 300 |  |\n| Munich | Lisbon | 1964 | quoted \"hub\" |\n| Munich | New York\\|JFK | 6492 |  |"
	if doc.Markdown != want || doc.Title != "distances" || doc.Format != "csv" || doc.Pages != nil {
		t.Errorf("doc = %q %q %v\n%s\nwant\n%s", doc.Title, doc.Format, doc.Pages, doc.Markdown, want)
	}
	doc = parseFixture(t, "csvtable/testdata/airports.tsv")
	if !strings.Contains(doc.Markdown, "| DEL | Delhi, NCT | India |") {
		t.Errorf("tsv markdown =\n%s", doc.Markdown)
	}
}

func TestEPUBMarkdown(t *testing.T) {
	doc := parseFixture(t, "epub/testdata/guide.epub")
	want := "# Compensation\n\nA flight of 5,921 km from Delhi to Munich earns 600 EUR.\n\n| km | EUR |\n| --- | --- |\n| 1,500 | 250 |\n\n" +
		"# Airports\n\nMunich Airport lies near Freising.\n\n- Terminal 1\n- Terminal 2"
	if doc.Markdown != want || doc.Title != "Travelling from Munich" || doc.Format != "epub" {
		t.Errorf("doc = %q %q\n%s\nwant\n%s", doc.Title, doc.Format, doc.Markdown, want)
	}
}

// TestODTMarkdown: LibreOffice 7.4's ODT of testdata/realworld/report.html.
func TestODTMarkdown(t *testing.T) {
	doc := parseFixture(t, "odt/testdata/report.odt")
	want := "# Denied boarding compensation\n\nUnder Regulation 261/2004, a passenger who is denied boarding receives compensation that depends on the flight distance. The airline pays within seven days.\n\n" +
		"## Amounts\n\n- 250 EUR for flights of 1,500 km or less;\n- 400 EUR for flights between 1,500 and 3,500 km;\n- 600 EUR for all other flights.\n\n" +
		"## Distances from Munich\n\n| City | Country | Distance |\n| --- | --- | --- |\n| Delhi | India | 5,921 km |\n| Lisbon | Portugal | 1,964 km |\n| Zürich | Switzerland | 242 km |\n\n" +
		"Über diese Regeln: Fluggäste erhalten eine Ausgleichszahlung. Café, naïve, ﬁnance ligature.\n\nThe second page ends here."
	if doc.Markdown != want || doc.Title != "Denied boarding compensation" || doc.Format != "odt" {
		t.Errorf("doc = %q %q\n%s\nwant\n%s", doc.Title, doc.Format, doc.Markdown, want)
	}
}

func TestPDFPages(t *testing.T) {
	doc := parseFixture(t, "testdata/sample.pdf")
	if len(doc.Pages) != 2 || doc.PageAt(strings.Index(doc.Markdown, "The amounts are")) != 1 || doc.PageAt(strings.Index(doc.Markdown, "Page two ends here")) != 2 {
		t.Errorf("pages = %+v in\n%s", doc.Pages, doc.Markdown)
	}
}

// TestOfficeFormatErrors: each new format's bad files fail alone, with a
// sentinel and the file's name.
func TestOfficeFormatErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want error
	}{
		{"renamed.xlsx", "plain text, not a workbook", ErrMalformed},
		{"renamed.pptx", "plain text, not a deck", ErrMalformed},
		{"renamed.epub", "plain text, not a book", ErrMalformed},
		{"renamed.odt", "plain text, not a document", ErrMalformed},
		{"empty.xlsx", "", ErrEmpty},
		{"empty.csv", " \n", ErrEmpty},
		{"binary.csv", "\x89PNG\r\n\x1a\n\x00\x00", ErrBinary},
		{"blank-rows.csv", ",,\n , ,\n", ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseString(t, tt.name, tt.data)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("err = %v, want %v naming the file", err, tt.want)
			}
		})
	}
	bomb, err := os.ReadFile("pptx/testdata/bomb.pptx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(context.Background(), "bomb.pptx", strings.NewReader(string(bomb)), Limits{MaxInflated: 8 << 20}, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("bomb.pptx: err = %v, want ErrTooLarge", err)
	}
}

func FuzzParseOffice(f *testing.F) {
	for _, p := range []string{"xlsx/testdata/fleet.xlsx", "pptx/testdata/review.pptx", "csvtable/testdata/distances.csv", "epub/testdata/guide.epub", "odt/testdata/report.odt"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "book.xlsx", data)
		checkParse(t, "deck.pptx", data)
		checkParse(t, "table.csv", data)
		checkParse(t, "book.epub", data)
		checkParse(t, "text.odt", data)
	})
}
