package odt

import (
	"archive/zip"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

func fixture(t *testing.T, name string) []byte {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReadReport: testdata/report.odt is LibreOffice 7.4's conversion of ../../testdata/realworld/report.html.
func TestReadReport(t *testing.T) {
	doc, err := Read(fixture(t, "report.odt"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Denied boarding compensation" || len(doc.Blocks) != 10 {
		t.Fatalf("title %q, %d blocks: %+v", doc.Title, len(doc.Blocks), doc.Blocks)
	}
	want := []Block{
		{Level: 1, Text: "Denied boarding compensation"},
		{Text: "Under Regulation 261/2004, a passenger who is denied boarding receives compensation that depends on the flight distance. The airline pays within seven days."},
		{Level: 2, Text: "Amounts"},
		{Item: true, Text: "250 EUR for flights of 1,500 km or less;"},
	}
	if !reflect.DeepEqual(doc.Blocks[:4], want) {
		t.Errorf("blocks = %+v\nwant %+v", doc.Blocks[:4], want)
	}
	if rows := doc.Blocks[7].Rows; !reflect.DeepEqual(rows[1], []string{"Delhi", "India", "5,921 km"}) || len(rows) != 4 {
		t.Errorf("table = %q", rows)
	}
}

// TestReadHandbook: testdata/handbook.odt is LibreOffice's conversion of ../../testdata/sample.docx: a tab
// and a line break inside a paragraph.
func TestReadHandbook(t *testing.T) {
	doc, err := Read(fixture(t, "handbook.odt"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Blocks) < 3 || doc.Blocks[2].Text != "Amounts depend\ton distance.\nSee the table." {
		t.Errorf("blocks = %+v", doc.Blocks)
	}
}

func TestReadErrors(t *testing.T) {
	good := fixture(t, "report.odt")
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("styles.xml")
	w.Write([]byte(`<office:document-styles/>`))
	zw.Close()
	tests := []struct {
		name string
		data []byte
		max  int64
		want error
		msg  string
	}{
		{"not a zip", []byte("text"), 1 << 20, parseerr.ErrMalformed, "not a zip"},
		{"truncated", good[:len(good)/2], 1 << 20, parseerr.ErrMalformed, "odt"},
		{"no content.xml", b.Bytes(), 1 << 20, parseerr.ErrMalformed, "content.xml"},
		{"past the cap", good, 3000, parseerr.ErrTooLarge, "odt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(tt.data, tt.max)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

// FuzzRead: any input, whole or as content.xml of an archive, ends in a document or an error wrapping a
// sentinel.
func FuzzRead(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "report.odt")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`<text:h text:outline-level="9">h<text:s text:c="-3"/></text:h><text:list><text:list-item><text:p>i<table:table><table:table-row><table:table-cell><text:p>c</text:p></table:table-cell></table:table-row></table:table></text:p></text:list-item></text:list>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			if _, err := Read(data, 1<<20); err != nil && !errors.Is(err, parseerr.ErrMalformed) && !errors.Is(err, parseerr.ErrTooLarge) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
		}
		check(data)
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		w, _ := zw.Create("content.xml")
		w.Write(data)
		zw.Close()
		check(b.Bytes())
	})
}
