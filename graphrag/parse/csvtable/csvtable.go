// Package csvtable reads delimited text (.csv, .tsv) with encoding/csv as
// rows of cells. The delimiter is the one of comma, semicolon, tab and pipe
// that the first line holds most of outside quotes (a .tsv is tab-delimited).
package csvtable

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// cellCost is the least a cell costs once written as a Markdown table cell
// (" x |"): the cap on cells follows from the cap on output bytes.
const cellCost = 3

// Read splits text into rows, dropping empty rows and the empty cells that end
// a row. Rows may have different lengths, and a stray quote is kept as text.
// The rows' cells, at cellCost each beyond their text, must fit in maxOut bytes
// (parseerr.ErrTooLarge otherwise). tab forces the tab delimiter.
func Read(text string, tab bool, maxOut int64) ([][]string, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = Delimiter(text)
	if tab {
		r.Comma = '\t'
	}
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var rows [][]string
	left := maxOut
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: csv: %v", parseerr.ErrMalformed, err)
		}
		n := len(rec)
		for n > 0 && strings.TrimSpace(rec[n-1]) == "" {
			n--
		}
		if n == 0 {
			continue
		}
		for _, c := range rec[:n] {
			left -= int64(len(c) + cellCost)
		}
		if left < 0 {
			return nil, fmt.Errorf("%w: csv cells pass %d bytes once written", parseerr.ErrTooLarge, maxOut)
		}
		rows = append(rows, rec[:n])
	}
}

// Delimiter is the delimiter text's first line uses most outside quotes,
// comma when it holds none.
func Delimiter(text string) rune {
	line, _, _ := strings.Cut(text, "\n")
	count := map[rune]int{}
	quoted := false
	for _, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case !quoted && strings.ContainsRune(",;\t|", c):
			count[c]++
		}
	}
	best := ','
	for _, c := range []rune{';', '\t', '|'} {
		if count[c] > count[best] {
			best = c
		}
	}
	return best
}
