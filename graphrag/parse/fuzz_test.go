package parse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxInflated: 8 << 20, MaxPages: 50}

// checkParse asserts what Parse promises on any input: no recovered panic
// of its own, only sentinel errors, and a usable document otherwise. It
// reads in process (parseInProcess): a child process per input would be
// too slow for the fuzz targets, and the in-process parser is what the
// child runs.
func checkParse(t *testing.T, name string, data []byte) {
	var doc Parsed
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		doc, err = parseInProcess(name, bytes.NewReader(data), fuzzLimits)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("Parse still running after 10s")
	}
	if err != nil {
		if errors.Is(err, errInternal) {
			t.Fatalf("panic recovered: %v", err)
		}
		for _, s := range []error{ErrUnsupported, ErrTooLarge, ErrEmpty, ErrBinary, ErrMalformed} {
			if errors.Is(err, s) {
				return
			}
		}
		t.Fatalf("error wraps no sentinel: %v", err)
	}
	if strings.TrimSpace(doc.Markdown) == "" || doc.Title == "" || doc.Format == "" {
		t.Fatalf("incomplete document: %+v", doc)
	}
	if !utf8.ValidString(doc.Markdown) || !utf8.ValidString(doc.Title) {
		t.Fatalf("invalid UTF-8 in %+v", doc)
	}
}

// crashesInProcess are testdata/bad files that crash the PDF library
// beyond any recover: only Parse, through its child process, may read them.
var crashesInProcess = map[string]bool{"cyclic-object-streams.pdf": true}

func addTestdataSeeds(f *testing.F, exts ...string) {
	for _, dir := range []string{"testdata", filepath.Join("testdata", "bad"), filepath.Join("testdata", "realworld")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			for _, ext := range exts {
				if strings.HasSuffix(e.Name(), ext) && !strings.Contains(e.Name(), "bomb") && !crashesInProcess[e.Name()] {
					data, err := os.ReadFile(filepath.Join(dir, e.Name()))
					if err == nil {
						f.Add(data)
					}
				}
			}
		}
	}
}

func FuzzParseHTML(f *testing.F) {
	for _, s := range []string{
		"<html><head><title>T</title></head><body><h1>A</h1><p>b<br>c</p><ul><li>x<ol><li>y</ol></ul></body></html>",
		"<table><tr><th>a</th><th>b</th></tr><tr><td>1<table><tr><td>2</td></tr></table></td></tr></table>",
		"<pre>```code```</pre><blockquote><p># q</p></blockquote><script>x</script><svg><text>no</text></svg>",
		"<meta charset=\"windows-1252\"><p>\x93quoted\x94</p>",
		"<p>unclosed <b>bold <table><td>cell",
	} {
		f.Add([]byte(s))
	}
	addTestdataSeeds(f, ".html")
	f.Fuzz(func(t *testing.T, data []byte) { checkParse(t, "page.html", data) })
}

// contentPDF puts data in a valid PDF twice: as a page's content stream and
// as the ToUnicode CMap of the font that page uses.
func contentPDF(data []byte) []byte {
	return buildPDF([]pdfObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> /XObject << /X1 7 0 R >> >> /Contents 4 0 R >>"},
		{stream: true, data: data},
		{dict: "<< /Type /Font /Subtype /Type0 /Encoding /Identity-H /ToUnicode 8 0 R >>"},
		{dict: "<< /Type /Font /Subtype /Type1 /FirstChar 32 /Widths [250 300] /ToUnicode 8 0 R >>"},
		{stream: true, dict: "/Type /XObject /Subtype /Form /Matrix [1 0 0 1 0 0]", data: data},
		{stream: true, data: data},
	}, "")
}

func FuzzParsePDF(f *testing.F) {
	addTestdataSeeds(f, ".pdf")
	for _, s := range []string{
		"BT /F1 12 Tf 72 700 Td (Hello) Tj T* [(a) -300 (b)] TJ ET",
		"BT /F2 9 Tf 1 0 0 1 10 10 Tm <0001> Tj ' (x) \" 1 2 (y) ET q 2 0 0 2 0 0 cm /X1 Do Q",
		"BI /W 1 /H 1 ID \x00\xff EI BT (after image) Tj ET",
		"1 begincodespacerange <00> <FF> endcodespacerange 1 beginbfchar <41> <0042> endbfchar 1 beginbfrange <00> <05> [<0061> <0062>] endbfrange",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "doc.pdf", data)
		if len(data) < 1<<16 {
			checkParse(t, "content.pdf", contentPDF(data))
		}
	})
}

func FuzzParseDOCX(f *testing.F) {
	addTestdataSeeds(f, ".docx")
	f.Add(buildDOCX(docxPara("Heading3", "h") + `<w:tbl><w:tr><w:tc><w:tbl><w:tr>` + docxCell("x") + `</w:tr></w:tbl></w:tc></w:tr></w:tbl>`))
	f.Add([]byte(`<w:document ` + wordNS + `><w:body>` + docxPara("Title", "T") + `<w:p><w:pPr><w:outlineLvl w:val="1"/></w:pPr><w:r><w:t>o</w:t><w:br/></w:r></w:p></w:body></w:document>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "doc.docx", data)
		// The same bytes as the document part of a valid archive.
		checkParse(t, "xml.docx", buildZip([][2]string{{"word/document.xml", string(data)}, {"word/styles.xml", string(data)}}))
	})
}

func FuzzParseText(f *testing.F) {
	for _, s := range []string{"hello\n\nworld", "\uFEFF# Title\r\n\r\ntext", "---\ntitle: x\n---\n# T\n", "a\x00b", "\xff\xfe", "   "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, "notes.txt", data)
		checkParse(t, "notes.md", data)
	})
}
