package parse

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/pptx"
)

// parsePPTX writes each slide as a heading ("Slide 3: <its title>"), its text
// boxes as paragraphs and its tables as tables, then its speaker notes under
// a "Notes" heading. Each slide is a page.
func parsePPTX(name string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Parsed{}, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	deck, err := pptx.Read(data, lim.MaxInflated)
	if err != nil {
		return Parsed{}, err
	}
	w := newMDWriter(lim.MaxInflated)
	firstTitle := ""
	for _, s := range deck.Slides {
		if len(s.Blocks) == 0 && len(s.Notes) == 0 && s.Title == "" {
			continue
		}
		w.Page(s.Number)
		heading := fmt.Sprintf("Slide %d", s.Number)
		if s.Title != "" {
			heading += ": " + s.Title
			firstTitle = cmp.Or(firstTitle, s.Title)
		}
		w.Heading(1, heading)
		for _, b := range s.Blocks {
			if b.Rows != nil {
				w.Table(b.Rows)
				continue
			}
			w.Paragraph(strings.Join(b.Lines, "\n"))
		}
		if len(s.Notes) > 0 {
			w.Heading(2, "Notes")
			w.Paragraph(strings.Join(s.Notes, "\n"))
		}
	}
	if w.err != nil {
		return Parsed{}, w.err
	}
	return Parsed{Title: cleanTitle(cmp.Or(deck.Title, firstTitle)), Format: "pptx", Markdown: w.String(), Pages: w.pages}, nil
}
