package xlsx

import (
	"archive/zip"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

var update = flag.Bool("update", false, "write testdata/fleet.xlsx again")

// fleetWorkbook is the fixture testdata/fleet.xlsx, as excelize writes it: a
// "Fleet" sheet with a number format and a cell holding a pipe and a line
// break, an empty second sheet, and a "Routes" sheet of 80 rows (enough to be
// split into several chunks).
func fleetWorkbook(t *testing.T) []byte {
	f := excelize.NewFile()
	defer f.Close()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.SetSheetName("Sheet1", "Fleet"))
	must(f.SetSheetRow("Fleet", "A1", &[]any{"Aircraft", "Seats", "Range (km)"}))
	must(f.SetSheetRow("Fleet", "A2", &[]any{"A320neo", 180, 6300}))
	must(f.SetSheetRow("Fleet", "A3", &[]any{"A350-900", 293, 15000}))
	must(f.SetSheetRow("Fleet", "A5", &[]any{"B787-9 | long haul\nwidebody", 296, 14140})) // row 4 left empty
	style, err := f.NewStyle(&excelize.Style{NumFmt: 3})                                   // #,##0
	must(err)
	must(f.SetCellStyle("Fleet", "C2", "C5", style))
	_, err = f.NewSheet("Empty")
	must(err)
	_, err = f.NewSheet("Routes")
	must(err)
	must(f.SetSheetRow("Routes", "A1", &[]any{"From", "To", "Distance (km)", "Compensation (EUR)"}))
	for i := range 80 {
		must(f.SetSheetRow("Routes", fmt.Sprintf("A%d", i+2), &[]any{"Munich", fmt.Sprintf("City %02d", i), 500 + 100*i, compensation(500 + 100*i)}))
	}
	must(f.SetDocProps(&excelize.DocProperties{Title: "Fleet and routes 2026", Creator: "Hopwise tests"}))
	var b bytes.Buffer
	must(f.Write(&b))
	return b.Bytes()
}

func compensation(km int) int {
	switch {
	case km <= 1500:
		return 250
	case km <= 3500:
		return 400
	}
	return 600
}

func fixture(t *testing.T) []byte {
	path := filepath.Join("testdata", "fleet.xlsx")
	if *update {
		if err := os.WriteFile(path, fleetWorkbook(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	return data
}

func TestReadFleet(t *testing.T) {
	wb, err := Read(fixture(t), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if wb.Title != "Fleet and routes 2026" {
		t.Errorf("title = %q", wb.Title)
	}
	if len(wb.Sheets) != 2 {
		t.Fatalf("%d sheets, want 2 (the empty one dropped): %+v", len(wb.Sheets), wb.Sheets)
	}
	fleet, routes := wb.Sheets[0], wb.Sheets[1]
	if fleet.Name != "Fleet" || fleet.Number != 1 || routes.Name != "Routes" || routes.Number != 3 {
		t.Errorf("sheets = %q %d, %q %d; want Fleet 1, Routes 3", fleet.Name, fleet.Number, routes.Name, routes.Number)
	}
	want := [][]string{
		{"Aircraft", "Seats", "Range (km)"},
		{"A320neo", "180", "6,300"},
		{"A350-900", "293", "15,000"},
		{"B787-9 | long haul\nwidebody", "296", "14,140"},
	}
	if !reflect.DeepEqual(fleet.Rows, want) {
		t.Errorf("Fleet rows = %q\nwant %q", fleet.Rows, want)
	}
	if len(routes.Rows) != 81 || !reflect.DeepEqual(routes.Rows[80], []string{"Munich", "City 79", "8400", "600"}) {
		t.Errorf("Routes: %d rows, last %q", len(routes.Rows), routes.Rows[len(routes.Rows)-1])
	}
}

func TestReadErrors(t *testing.T) {
	good := fixture(t)
	tests := []struct {
		name        string
		data        []byte
		maxInflated int64
		want        error
		msg         string
	}{
		{"not a zip", []byte("Aircraft,Seats\nA320neo,180\n"), 1 << 20, parseerr.ErrMalformed, "not a zip"},
		{"truncated", good[:len(good)/2], 1 << 20, parseerr.ErrMalformed, "xlsx"},
		{"zip without a workbook", zipOf(t, "word/document.xml", "<w:document/>"), 1 << 20, parseerr.ErrMalformed, "xlsx"},
		{"inflates past the cap", good, 2000, parseerr.ErrTooLarge, "unzip size"},
		{"one shared string in 2,000 cells", sharedStringBomb(t), 1 << 20, parseerr.ErrTooLarge, "cells pass"},
		{"only an empty sheet", emptyWorkbook(t), 1 << 20, parseerr.ErrEmpty, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(tt.data, tt.maxInflated)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

func zipOf(t *testing.T, name, content string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(content))
	zw.Close()
	return b.Bytes()
}

// sharedStringBomb repeats one 2,000-byte string in 2,000 cells: excelize
// stores it once, in the shared strings, so the archive stays small while the
// cells come to 4 MB.
func sharedStringBomb(t *testing.T) []byte {
	f := excelize.NewFile()
	defer f.Close()
	long := strings.Repeat("x", 2000)
	for i := range 2000 {
		if err := f.SetCellValue("Sheet1", fmt.Sprintf("A%d", i+1), long); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func emptyWorkbook(t *testing.T) []byte {
	f := excelize.NewFile()
	defer f.Close()
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// FuzzRead: any input ends in a workbook with sheets or an error wrapping one
// of the sentinels, within the cap.
func FuzzRead(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "fleet.xlsx")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var wb Workbook
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			wb, err = Read(data, 1<<20)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<16)
			t.Fatalf("Read still running after 10s:\n%s", buf[:runtime.Stack(buf, true)])
		}
		if err != nil {
			for _, s := range []error{parseerr.ErrMalformed, parseerr.ErrTooLarge, parseerr.ErrEmpty} {
				if errors.Is(err, s) {
					return
				}
			}
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		if len(wb.Sheets) == 0 {
			t.Fatal("no error and no sheet")
		}
	})
}
