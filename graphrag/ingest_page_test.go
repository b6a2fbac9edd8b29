package graphrag_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestIngestRecordsPages: the chunks of a PDF, a deck and a workbook carry the page, slide or sheet they
// start on; those of a Markdown file carry none.
func TestIngestRecordsPages(t *testing.T) {
	env := newEnvWith(t, graphrag.IngestOptions{Workers: 2, MaxTokens: 60})
	files := map[string]string{}
	for name, path := range map[string]string{
		"rules.pdf":   "parse/testdata/sample.pdf",
		"review.pptx": "parse/pptx/testdata/review.pptx",
		"fleet.xlsx":  "parse/xlsx/testdata/fleet.xlsx",
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	files["notes.md"] = "# Notes\n\nNo pages here.\n"
	for name, p := range env.ingest(files) {
		if p.Status != graphrag.StatusDone {
			t.Fatalf("%s: %+v", name, p)
		}
		chunks, err := env.store.DocumentChunks(context.Background(), p.DocID)
		if err != nil {
			t.Fatal(err)
		}
		pages := map[int]bool{}
		for _, c := range chunks {
			pages[c.Page] = true
			switch {
			case name == "review.pptx" && strings.Contains(c.Text, "Slide 2: Compensation") && c.Page != 2,
				name == "fleet.xlsx" && strings.Contains(c.Text, "| Munich | City 79") && c.Page != 3,
				name == "rules.pdf" && strings.Contains(c.Text, "Page two ends here") && c.Page != 2,
				name == "rules.pdf" && strings.Contains(c.Text, "The amounts are") && c.Page != 1,
				name == "notes.md" && c.Page != 0:
				t.Errorf("%s: chunk %d on page %d:\n%s", name, c.Ordinal, c.Page, c.Text)
			}
		}
		want := map[string]int{"rules.pdf": 2, "review.pptx": 3, "fleet.xlsx": 2, "notes.md": 1}[name]
		if len(pages) != want {
			t.Errorf("%s: chunks on pages %v, want %d different", name, pages, want)
		}
	}
}
