package parse

import (
	"io"

	"github.com/hopwise/hopwise/graphrag/parse/csvtable"
)

// parseCSV writes a .csv or .tsv file as one table whose first row is the
// header; the chunker repeats that row in every chunk of the table. The text
// is read like a .txt file (UTF-16 and Latin-1 decoded, binary refused).
func parseCSV(name string, r io.Reader, lim Limits) (Parsed, error) {
	text, err := readText(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	rows, err := csvtable.Read(text, extension(name) == ".tsv", lim.MaxInflated)
	if err != nil {
		return Parsed{}, err
	}
	w := newMDWriter(lim.MaxInflated)
	w.Table(rows)
	if w.err != nil {
		return Parsed{}, w.err
	}
	return Parsed{Format: "csv", Markdown: w.String()}, nil
}
