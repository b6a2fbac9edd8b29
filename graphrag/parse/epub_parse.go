package parse

import (
	"bytes"
	"cmp"
	"fmt"
	"io"

	"github.com/hopwise/hopwise/graphrag/parse/epub"
	"github.com/hopwise/hopwise/graphrag/parse/html"
)

// parseEPUB writes the chapters of a book in reading order, each read like an
// HTML page into one Markdown document.
func parseEPUB(name string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Parsed{}, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	book, err := epub.Read(data, lim.MaxInflated)
	if err != nil {
		return Parsed{}, err
	}
	w := newMDWriter(lim.MaxInflated)
	firstHeading := ""
	for _, ch := range book.Chapters {
		page, err := html.Walk(bytes.NewReader(ch), w)
		if err != nil {
			return Parsed{}, err
		}
		firstHeading = cmp.Or(firstHeading, page.H1)
	}
	if w.err != nil {
		return Parsed{}, w.err
	}
	return Parsed{Title: cleanTitle(cmp.Or(book.Title, firstHeading)), Format: "epub", Markdown: w.String()}, nil
}
