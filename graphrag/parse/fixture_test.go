package parse

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated files in testdata")

// pdfObject is one indirect object of a generated PDF: a dictionary body,
// and stream data when stream is true.
type pdfObject struct {
	dict   string
	data   []byte
	stream bool
}

// buildPDF writes objects 1..n with a correct cross-reference table;
// object 1 must be the catalog and trailerExtra is added to the trailer.
func buildPDF(objs []pdfObject, trailerExtra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n", i+1)
		if o.stream {
			fmt.Fprintf(&b, "<< %s /Length %d >>\nstream\n", o.dict, len(o.data))
			b.Write(o.data)
			b.WriteString("\nendstream\nendobj\n")
			continue
		}
		b.WriteString(o.dict + "\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailerExtra, xref)
	return b.Bytes()
}

func zlibBytes(data []byte) []byte {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// samplePDF is a two-page PDF: page 1 in a simple font with a heading,
// two paragraphs and bullets; page 2 compressed, with TJ kerning gaps and a
// Type0 font read through a ToUnicode CMap.
func samplePDF() []byte {
	page1 := `BT /F2 18 Tf 72 740 Td (Denied boarding in the EU) Tj ET
BT /F1 11 Tf 14 TL 72 700 Td (Under Regulation 261/2004 a passenger who is denied boarding) Tj
T* (receives compensation that depends on the flight distance.) Tj ET
BT /F1 11 Tf 14 TL 72 660 Td (The amounts are:) Tj
T* (\225 250 EUR for flights of 1500 km or less;) Tj
T* (\225 400 EUR for flights between 1500 and 3500 km;) Tj
T* (\225 600 EUR for all other flights.) Tj ET`
	page2 := `BT /F1 11 Tf 72 740 Td [(Delhi) -300 (to) -280 (Munich:) -250 (5,921) -260 (km)] TJ ET
BT /F3 11 Tf 72 720 Td <000100020003> Tj ET
q 1 0 0 1 0 0 cm BT /F1 11 Tf 72 690 Td (Page two ends here.) Tj ET Q`
	cmap := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Test def 1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0001> <00DC0062> <0002> <0065007200730065007400200020> endbfchar
1 beginbfrange <0003> <0003> <2713> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end`
	res := "/Resources << /Font << /F1 5 0 R /F2 6 0 R /F3 9 0 R >> >>"
	return buildPDF([]pdfObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R 7 0 R] /Count 2 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " + res + " /Contents 4 0 R >>"},
		{stream: true, data: []byte(page1)},
		{dict: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"},
		{dict: "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] " + res + " /Contents 8 0 R >>"},
		{stream: true, dict: "/Filter /FlateDecode", data: zlibBytes([]byte(page2))},
		{dict: "<< /Type /Font /Subtype /Type0 /BaseFont /TestCID /Encoding /Identity-H /DescendantFonts [10 0 R] /ToUnicode 11 0 R >>"},
		{dict: "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /TestCID /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 600 >>"},
		{stream: true, data: []byte(cmap)},
		{dict: "<< /Title (EU denied boarding rules) /Producer (hopwise test generator) >>"},
	}, "/Info 12 0 R")
}

// buildZip stores the named files, deflated, in order.
func buildZip(files [][2]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range files {
		w, err := zw.Create(f[0])
		if err != nil {
			panic(err)
		}
		w.Write([]byte(f[1]))
	}
	zw.Close()
	return b.Bytes()
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

func docxPara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

func docxCell(text string) string { return `<w:tc>` + docxPara("", text) + `</w:tc>` }

// buildDOCX wraps body paragraphs in a minimal but complete DOCX package.
func buildDOCX(body string) []byte {
	doc := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<w:document ` + wordNS + `><w:body>` + body + `<w:sectPr/></w:body></w:document>`
	return buildZip([][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", doc},
		{"word/styles.xml", `<?xml version="1.0" encoding="UTF-8"?><w:styles ` + wordNS + `>` +
			`<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>` +
			`<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/></w:style></w:styles>`},
	})
}

// sampleDOCX has a title, headings (one through a localised style id), a
// paragraph with a tab and a line break, a bulleted list, a table with a
// pipe in a cell, and a text box whose fallback copy must not repeat.
func sampleDOCX() []byte {
	list := func(text string) string {
		return `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>` + text + `</w:t></w:r></w:p>`
	}
	body := docxPara("Titel", "Airline staff handbook") +
		docxPara("berschrift1", "Compensation") +
		`<w:p><w:r><w:t>Amounts depend</w:t><w:tab/><w:t>on distance.</w:t><w:br/><w:t>See the table.</w:t></w:r></w:p>` +
		list("250 EUR up to 1500 km") + list("400 EUR up to 3500 km") + list("600 EUR beyond") +
		docxPara("Heading2", "Distances") +
		`<w:tbl><w:tr>` + docxCell("from") + docxCell("to") + docxCell("km") + `</w:tr>` +
		`<w:tr>` + docxCell("Munich") + docxCell("Delhi") + docxCell("5,921") + `</w:tr>` +
		`<w:tr>` + docxCell("Munich") + docxCell("A|B") + docxCell("1") + `</w:tr></w:tbl>` +
		`<w:p><w:r><mc:AlternateContent><mc:Choice><w:txbxContent>` + docxPara("", "Boxed note.") +
		`</w:txbxContent></mc:Choice><mc:Fallback><w:txbxContent>` + docxPara("", "Boxed note.") +
		`</w:txbxContent></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		docxPara("", "Last paragraph with &lt;angle&gt; &amp; ampersand.")
	return buildDOCX(body)
}

// bombDOCX is a DOCX whose document.xml inflates about 1000:1 to n bytes.
func bombDOCX(n int) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	w, _ := zw.Create("word/document.xml")
	io.WriteString(w, `<w:document `+wordNS+`><w:body><w:p><w:r><w:t>`)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for written := 0; written < n; written += len(chunk) {
		w.Write(chunk)
	}
	io.WriteString(w, `</w:t></w:r></w:p></w:body></w:document>`)
	zw.Close()
	return b.Bytes()
}

// generatedFiles are the testdata files the generators above produce.
func generatedFiles() map[string][]byte {
	pdfData := samplePDF()
	return map[string][]byte{
		"sample.pdf":                      pdfData,
		"sample.docx":                     sampleDOCX(),
		"bad/empty.txt":                   {},
		"bad/whitespace.md":               []byte(" \n\t\n  \r\n"),
		"bad/binary-renamed.txt":          append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2, 0xff}, 64)...),
		"bad/truncated.pdf":               pdfData[:len(pdfData)/2],
		"bad/text-renamed.pdf":            []byte("This is only text, saved with a .pdf name.\n"),
		"bad/not-a-zip.docx":              []byte("This is plain text saved as .docx, not a zip archive.\n"),
		"bad/truncated.docx":              sampleDOCX()[:300],
		"bad/no-document.docx":            buildZip([][2]string{{"word/other.xml", "<x/>"}}),
		"bad/cyclic-pages.pdf":            cyclicPagesPDF(),
		"bad/no-text.pdf":                 noTextPDF(),
		"bad/huge-xref-size.pdf":          bytes.Replace(pdfData, []byte("/Size 13"), []byte("/Size 99999999999"), 1),
		"bad/binary.html":                 append([]byte("GIF89a"), bytes.Repeat([]byte{0, 0xff}, 100)...),
		"bad/unknown.exe":                 []byte("MZ\x90\x00"),
		"bad/empty.html":                  []byte("  \n"),
		"bad/scripts-only.html":           []byte("<html><head><script>var a = 1;</script><style>p{}</style></head><body><script>x()</script></body></html>"),
		"bad/empty-document.docx":         buildDOCX(""),
		"bad/not-a-zip-renamed.docx":      pdfData[:64],
		"bad/pdf-renamed.txt":             pdfData,
		"bad/docx-renamed.md":             sampleDOCX(),
		"bad/encrypted-looking.pdf":       []byte("%PDF-1.4\n1 0 obj\n<<>>\nendobj\nstartxref\n9\n%%EOF\n"),
		"bad/unterminated-hex-objstm.pdf": objStmHexPDF(),
		"bad/cyclic-object-streams.pdf":   cyclicObjStmPDF(),
	}
}

// cyclicPagesPDF has a page tree node that lists itself as its own kid.
func cyclicPagesPDF() []byte {
	return buildPDF([]pdfObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R >>"},
	}, "")
}

// noTextPDF has one page that only draws a rectangle.
func noTextPDF() []byte {
	return buildPDF([]pdfObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>"},
		{stream: true, data: []byte("0 0 1 rg 10 10 100 100 re f")},
	}, "")
}

// objStmHexPDF has an uncompressed object stream that ends inside a hex
// string, which would make the library loop forever.
func objStmHexPDF() []byte {
	return buildPDF([]pdfObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>"},
		{stream: true, dict: "/Type /ObjStm /N 1 /First 4", data: []byte("5 0 <414243")},
	}, "")
}

// cyclicObjStmPDF has only a cross-reference stream, whose entries say
// that object 1 is inside object stream 2 and object 2 inside object
// stream 1: the library recurses between them until the Go stack
// overflows, a fatal error no recover catches.
func cyclicObjStmPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	xrefAt := b.Len()
	// /W [1 1 1]: type, field 2, field 3. Type 2 is "in object stream
	// <field 2> at index <field 3>"; type 1 is "at byte offset <field 2>".
	entries := []byte{0, 0, 0, 2, 2, 0, 2, 1, 0, 1, byte(xrefAt), 0}
	fmt.Fprintf(&b, "3 0 obj\n<< /Type /XRef /Size 4 /W [1 1 1] /Root 1 0 R /Length %d >>\nstream\n", len(entries))
	b.Write(entries)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return b.Bytes()
}

func TestGeneratedFilesUpToDate(t *testing.T) {
	files := generatedFiles()
	if *update {
		files["bad/bomb.docx"] = bombDOCX(110 << 20) // slow to build: only on -update
	}
	for name, want := range files {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -run TestGeneratedFilesUpToDate -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator (run with -update)", name)
		}
	}
}

// TestBombRatio checks the committed zip bomb without rebuilding it.
func TestBombRatio(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "bad", "bomb.docx"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if ratio := f.UncompressedSize64 / f.CompressedSize64; f.UncompressedSize64 <= 100<<20 || ratio < 900 {
			t.Errorf("%s inflates %d bytes at %d:1, want > 100 MiB at about 1000:1", f.Name, f.UncompressedSize64, ratio)
		}
	}
}
