package parse

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hopwise/hopwise/graphrag/parse/odt"
)

// parseODT writes an OpenDocument text's headings, paragraphs, list items and
// tables as Markdown.
func parseODT(name string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Parsed{}, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	doc, err := odt.Read(data, lim.MaxInflated)
	if err != nil {
		return Parsed{}, err
	}
	w := newMDWriter(lim.MaxInflated)
	title := doc.Title
	for _, b := range doc.Blocks {
		switch {
		case b.Rows != nil:
			w.Table(b.Rows)
		case b.Level > 0:
			w.Heading(b.Level, b.Text)
			if title == "" {
				title = b.Text
			}
		case b.Item:
			w.ListItem(b.Depth, b.Text)
		default:
			w.Paragraph(b.Text)
		}
	}
	if w.err != nil {
		return Parsed{}, w.err
	}
	return Parsed{Title: cleanTitle(title), Format: "odt", Markdown: w.String()}, nil
}
