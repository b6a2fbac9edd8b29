package handlers

import (
	"bytes"
	"context"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/web"
)

// TestCitationOpensTheOriginalAtItsPage: a cited PDF passage links to the original at its page
// (#page=N), a slide and a sheet name theirs, a Markdown passage links to the original without a page,
// and a web source has no original.
func TestCitationOpensTheOriginalAtItsPage(t *testing.T) {
	tests := []struct {
		name      string
		c         agent.Citation
		href      string
		linkText  string
		wantLinks int
	}{
		{"pdf", agent.Citation{N: 1, Kind: agent.KindChunk, ChunkID: "d1-0002", DocID: "d1", DocName: "EU rules.pdf", Snippet: "600 EUR", Page: 4},
			"/documents/d1/original#page=4", "Open the original at page 4", 1},
		{"fact from a deck", agent.Citation{N: 2, Kind: agent.KindFact, FactID: "f", Sentence: "Munich DISTANCE Delhi", ChunkID: "d2-0001", DocID: "d2", DocName: "review.pptx", Page: 2},
			"/documents/d2/original", "Open the original at slide 2", 1},
		{"sheet", agent.Citation{N: 3, Kind: agent.KindChunk, ChunkID: "d3-0000", DocID: "d3", DocName: "fleet.xlsx", Page: 3},
			"/documents/d3/original", "Open the original at sheet 3", 1},
		{"markdown", agent.Citation{N: 4, Kind: agent.KindChunk, ChunkID: "d4-0000", DocID: "d4", DocName: "notes.md"},
			"/documents/d4/original", "Open the original", 1},
		{"web", agent.Citation{N: 5, Kind: agent.KindWeb, URL: "https://example.org/", Title: "Example"}, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := web.Citation(citationView(tt.c, "cite-t-")).Render(context.Background(), &b); err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(&b)
			if err != nil {
				t.Fatal(err)
			}
			links := doc.Find("a.original")
			if links.Length() != tt.wantLinks {
				t.Fatalf("%d links to the original in %s", links.Length(), b.String())
			}
			if tt.wantLinks == 0 {
				return
			}
			if href := links.AttrOr("href", ""); href != tt.href {
				t.Errorf("href %q, want %q", href, tt.href)
			}
			if text := links.Text(); text != tt.linkText {
				t.Errorf("link text %q, want %q", text, tt.linkText)
			}
		})
	}
}

func TestOriginalType(t *testing.T) {
	tests := []struct {
		name, body, ctype, disposition string
	}{
		{"a.pdf", "%PDF-1.7\n...", "application/pdf", "inline"},
		{"A.PDF", "%PDF-1.4\n...", "application/pdf", "inline"},
		{"fake.pdf", "<html><script>alert(1)</script></html>", "application/octet-stream", "attachment"},
		{"notes.md", "# Notes", "text/plain; charset=utf-8", "inline"},
		{"latin1.txt", "caf\xe9", "text/plain", "inline"},
		{"table.csv", "a,b\n1,2\n", "text/plain; charset=utf-8", "inline"},
		{"page.html", "<script>alert(1)</script>", "application/octet-stream", "attachment"},
		{"page.htm", "<p>x</p>", "application/octet-stream", "attachment"},
		{"deck.pptx", "PK\x03\x04", "application/octet-stream", "attachment"},
		{"image.svg", "<svg onload=alert(1)>", "application/octet-stream", "attachment"},
	}
	for _, tt := range tests {
		ctype, disposition := originalType(tt.name, []byte(tt.body))
		if ctype != tt.ctype || disposition != tt.disposition {
			t.Errorf("%s: %q %q, want %q %q", tt.name, ctype, disposition, tt.ctype, tt.disposition)
		}
	}
}
