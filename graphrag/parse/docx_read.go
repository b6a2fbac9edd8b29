package parse

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hopwise/hopwise/graphrag/parse/docx"
)

// parseDOCX writes a Word document's headings, paragraphs, list items and
// tables, as package docx reads them, as Markdown.
func parseDOCX(name string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Parsed{}, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	w := newMDWriter(lim.MaxInflated)
	title, err := docx.Read(data, lim.MaxInflated, w)
	if err != nil {
		return Parsed{}, err
	}
	return Parsed{Title: cleanTitle(title), Format: "docx", Markdown: w.String()}, nil
}
