package chunk_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/chunk"
	"github.com/hopwise/hopwise/graphrag/parse"
)

// TestDemoCorpus runs the sample documents (package samples) and the parse fixtures through Parse and Split.
func TestDemoCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "samples", "docs", "*.md"))
	if err != nil || len(files) < 6 {
		t.Fatalf("demo corpus: %v files, %v", len(files), err)
	}
	files = append(files, filepath.Join("..", "parse", "testdata", "sample.pdf"), filepath.Join("..", "parse", "testdata", "sample.docx"))
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			doc, err := parse.Parse(context.Background(), filepath.Base(path), f, parse.Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			chunks, err := chunk.Split(context.Background(), doc.Title, doc.Markdown, chunk.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(chunks) == 0 {
				t.Fatal("no chunks")
			}
			for i, c := range chunks {
				if c.Ordinal != i || strings.TrimSpace(c.Body) == "" || c.Tokens > chunk.DefaultMaxTokens {
					t.Errorf("chunk %d: ordinal %d, %d tokens, body %q", i, c.Ordinal, c.Tokens, c.Body)
				}
				if !strings.HasPrefix(c.Text, doc.Title) {
					t.Errorf("chunk %d text does not start with the title %q: %q", i, doc.Title, c.Text)
				}
			}
		})
	}
}

func TestDistanceTableWhole(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "samples", "docs", "munich-city-distances.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parse.Parse(context.Background(), "munich-city-distances.md", strings.NewReader(string(data)), parse.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Distances from Munich to major cities" {
		t.Fatalf("title = %q", doc.Title)
	}
	chunks, err := chunk.Split(context.Background(), doc.Title, doc.Markdown, chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(doc.Markdown, "| city | country | distance from Munich |")
	end := strings.Index(doc.Markdown, "| Singapore | Singapore | 10,062 km |") + len("| Singapore | Singapore | 10,062 km |")
	table := doc.Markdown[start:end]
	var holder []chunk.Piece
	for _, c := range chunks {
		if strings.Contains(c.Text, "| Delhi | India | 5,921 km |") {
			holder = append(holder, c)
		}
	}
	if len(holder) != 1 {
		t.Fatalf("the Delhi row is in %d chunks, want 1", len(holder))
	}
	c := holder[0]
	if !strings.Contains(c.Body, table) {
		t.Errorf("the distance table is not whole in one chunk:\n%s", c.Text)
	}
	if !strings.HasPrefix(c.Text, "Distances from Munich to major cities\n\n") {
		t.Errorf("chunk text lacks the title prefix: %q", c.Text[:60])
	}
	if len(c.Section) != 0 {
		t.Errorf("section = %q, want empty (the H1 is the title)", c.Section)
	}
}
