package parse

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hopwise/hopwise/graphrag/parse/xlsx"
)

// parseXLSX writes each non-empty sheet of a workbook as a heading (its name)
// and one table whose first row is the header; the chunker repeats that row
// in every chunk of a table it splits. Each sheet is a page, numbered by its
// position in the workbook.
func parseXLSX(name string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Parsed{}, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	wb, err := xlsx.Read(data, lim.MaxInflated)
	if err != nil {
		return Parsed{}, err
	}
	w := newMDWriter(lim.MaxInflated)
	for _, s := range wb.Sheets {
		w.Page(s.Number)
		w.Heading(1, s.Name)
		w.Table(s.Rows)
	}
	if w.err != nil {
		return Parsed{}, w.err
	}
	return Parsed{Title: cleanTitle(wb.Title), Format: "xlsx", Markdown: w.String(), Pages: w.pages}, nil
}
