// Package xlsx reads the cells of an Excel workbook (.xlsx) with excelize:
// every sheet, in workbook order, as rows of the text each cell displays
// (number formats applied; a formula's last computed value).
package xlsx

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
	"github.com/hopwise/hopwise/graphrag/parse/zipguard"
)

// Sheet is one worksheet: its name, its 1-based position in the workbook,
// and its rows with empty rows and empty trailing columns dropped.
type Sheet struct {
	Name   string
	Number int
	Rows   [][]string
}

// cellCost is the least a cell costs once written as a Markdown table cell
// (" x |"): the cap on cells follows from the cap on inflated bytes.
const cellCost = 3

// Workbook is what Read found: the sheets (none empty) and the title from the
// document properties ("" when unset).
type Workbook struct {
	Title  string
	Sheets []Sheet
}

// Read reads a workbook held in data. Everything inflated from the archive,
// and the cells it yields, count against maxInflated: past it Read fails with
// parseerr.ErrTooLarge. A workbook whose every sheet is empty fails with
// parseerr.ErrEmpty.
func Read(data []byte, maxInflated int64) (Workbook, error) {
	if _, err := zipguard.Open(data, maxInflated, "xlsx"); err != nil {
		return Workbook{}, err
	}
	// The XML limit equal to the total keeps every part in memory: excelize
	// spills larger worksheets to temporary files.
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: maxInflated, UnzipXMLSizeLimit: maxInflated})
	if err != nil {
		return Workbook{}, openError(err)
	}
	defer f.Close()
	var wb Workbook
	if props, err := f.GetDocProps(); err == nil && props != nil {
		wb.Title = strings.TrimSpace(props.Title)
	}
	budget := &cellBudget{left: maxInflated, max: maxInflated}
	for i, name := range f.GetSheetList() {
		rows, err := sheetRows(f, name, budget)
		if err != nil {
			return Workbook{}, err
		}
		if len(rows) > 0 {
			wb.Sheets = append(wb.Sheets, Sheet{Name: name, Number: i + 1, Rows: rows})
		}
	}
	if len(wb.Sheets) == 0 {
		return Workbook{}, fmt.Errorf("%w: every sheet of the workbook is empty", parseerr.ErrEmpty)
	}
	return wb, nil
}

func openError(err error) error {
	if strings.Contains(err.Error(), "unzip size") {
		return fmt.Errorf("%w: xlsx: %v", parseerr.ErrTooLarge, err)
	}
	return fmt.Errorf("%w: xlsx: %v", parseerr.ErrMalformed, err)
}

// cellBudget is what is left of the cap on inflated bytes for cells.
type cellBudget struct {
	left, max int64
}

func (b *cellBudget) spend(n int64) error {
	if b.left -= n; b.left < 0 {
		return fmt.Errorf("%w: xlsx cells pass %d bytes once written", parseerr.ErrTooLarge, b.max)
	}
	return nil
}

// sheetRows streams one sheet's rows, keeping the non-empty ones. Each kept
// row costs its text plus cellCost per cell, and the padding of short rows to
// the widest costs cellCost per cell as well.
func sheetRows(f *excelize.File, name string, budget *cellBudget) ([][]string, error) {
	it, err := f.Rows(name)
	if err != nil {
		return nil, fmt.Errorf("%w: xlsx sheet %q: %v", parseerr.ErrMalformed, name, err)
	}
	defer it.Close()
	var rows [][]string
	width, cells := 0, 0
	for it.Next() {
		row, err := it.Columns()
		if err != nil {
			return nil, fmt.Errorf("%w: xlsx sheet %q: %v", parseerr.ErrMalformed, name, err)
		}
		if row = trimRow(row); len(row) == 0 {
			continue
		}
		cost := int64(0)
		for _, c := range row {
			cost += int64(len(c) + cellCost)
		}
		if err := budget.spend(cost); err != nil {
			return nil, err
		}
		width, cells = max(width, len(row)), cells+len(row)
		rows = append(rows, row)
	}
	if err := it.Error(); err != nil {
		return nil, fmt.Errorf("%w: xlsx sheet %q: %v", parseerr.ErrMalformed, name, err)
	}
	if err := budget.spend(int64(width*len(rows)-cells) * cellCost); err != nil {
		return nil, err
	}
	return rows, nil
}

// trimRow drops the empty cells at the end of a row, and returns nil for a
// row with no text at all.
func trimRow(cells []string) []string {
	n := len(cells)
	for n > 0 && strings.TrimSpace(cells[n-1]) == "" {
		n--
	}
	return cells[:n]
}
