package parse

import (
	"cmp"
	"io"

	"github.com/hopwise/hopwise/graphrag/parse/html"
)

// parseHTML streams an HTML page through package html, writing its visible
// text as Markdown blocks; the title is the title element's, else the first
// h1's.
func parseHTML(name string, r io.Reader, lim Limits) (Parsed, error) {
	w := newMDWriter(lim.MaxInflated)
	page, err := html.Read(r, lim.MaxBytes, w)
	if err != nil {
		return Parsed{}, err
	}
	return Parsed{Title: cleanTitle(cmp.Or(page.Title, page.H1)), Format: "html", Markdown: w.String()}, nil
}
