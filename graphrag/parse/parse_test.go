package parse

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func parseString(t *testing.T, name, content string) (Parsed, error) {
	t.Helper()
	return Parse(context.Background(), name, strings.NewReader(content), Limits{}, nil)
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func checkDoc(t *testing.T, doc Parsed, title, format string, want, notWant []string) {
	t.Helper()
	if doc.Title != title {
		t.Errorf("title = %q, want %q", doc.Title, title)
	}
	if doc.Format != format {
		t.Errorf("format = %q, want %q", doc.Format, format)
	}
	for _, w := range want {
		if !strings.Contains(doc.Markdown, w) {
			t.Errorf("markdown lacks %q:\n%s", w, doc.Markdown)
		}
	}
	for _, w := range notWant {
		if strings.Contains(doc.Markdown, w) {
			t.Errorf("markdown has %q:\n%s", w, doc.Markdown)
		}
	}
}

func TestParseText(t *testing.T) {
	long := strings.Repeat("word ", 40)
	tests := []struct {
		name, file, content, title string
		want, notWant              []string
	}{
		{name: "title from first line", file: "notes.txt", content: "\n\nTrip notes\n\nFirst paragraph.\nStill first.\n\nSecond.",
			title: "Trip notes", want: []string{"First paragraph.\nStill first.\n\nSecond."}},
		{name: "long first line gives file name", file: "dir/my-notes.TXT", content: long + "\n\nmore",
			title: "my-notes", want: []string{long}},
		{name: "BOM stripped and CRLF normalised", file: "w.txt", content: "\uFEFFHello\r\n\r\nWorld\rEnd",
			title: "Hello", want: []string{"Hello\n\nWorld\nEnd"}, notWant: []string{"\uFEFF", "\r"}},
		{name: "windows path", file: `C:\docs\report.txt`, content: strings.Repeat("x", 120), title: "report"},
		{name: "unicode kept", file: "u.txt", content: "Zürich – 東京\n\n5,921 km", title: "Zürich – 東京", want: []string{"5,921 km"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseString(t, tt.file, tt.content)
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, doc, tt.title, "text", tt.want, tt.notWant)
		})
	}
}

func TestParseMarkdown(t *testing.T) {
	tests := []struct {
		name, content, title string
		want, notWant        []string
	}{
		{name: "kept as is", content: "Intro\n\n# Real Title\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n",
			title: "Real Title", want: []string{"Intro\n\n# Real Title\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"}},
		{name: "yaml front matter stripped", content: "---\ntitle: From Front\ntags: [a]\n---\nBody text\n",
			title: "From Front", want: []string{"Body text"}, notWant: []string{"tags:", "---"}},
		{name: "h1 wins over front matter", content: "+++\ntitle = \"Toml\"\n+++\n# Heading One #\ntext\n",
			title: "Heading One", want: []string{"# Heading One #\ntext"}, notWant: []string{"Toml"}},
		{name: "unclosed front matter kept", content: "---\nnot front matter\n\ntext\n",
			title: "guide", want: []string{"---\nnot front matter"}},
		{name: "heading in code fence ignored", content: "```\n# not a title\n```\n\n## Sub\n\n# Title After\n",
			title: "Title After"},
		{name: "no heading gives file name", content: "just text", title: "guide"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseString(t, "docs/guide.md", tt.content)
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, doc, tt.title, "markdown", tt.want, tt.notWant)
		})
	}
}

func TestParseHTML(t *testing.T) {
	tests := []struct {
		name, content, title string
		want, notWant        []string
	}{
		{
			name: "blocks, lists, skipped elements",
			content: `<!DOCTYPE html><html><head><title> EU   rules </title><style>p{color:red}</style>
<script>alert("x")</script><meta charset="utf-8"></head><body>
<nav>Home</nav><h1>Denied <b>boarding</b></h1><p>Compensation depends<br>on distance.</p>
<div>First div</div><div>Second div</div><ul><li>250 EUR</li><li>400 <i>EUR</i><ul><li>nested</li></ul></li></ul>
<noscript>enable js</noscript><template><p>hidden</p></template><h2>Sub &amp; more</h2><pre>code  line 1
  indented</pre><blockquote>quoted</blockquote><p># not a heading</p></body></html>`,
			title: "EU rules",
			want: []string{"# Denied boarding\n\n", "Compensation depends\n\non distance.", "First div\n\nSecond div",
				"- 250 EUR\n- 400 EUR\n  - nested", "## Sub & more", "```\ncode  line 1\n  indented\n```", "> quoted", `\# not a heading`},
			notWant: []string{"alert", "color:red", "enable js", "hidden", "<"},
		},
		{
			name: "table to pipe table",
			content: `<h1>Distances</h1><table><caption>From Munich</caption><thead><tr><th>city</th><th>km</th></tr></thead>
<tbody><tr><td>Delhi</td><td>5,921 km</td></tr><tr><td>A|B</td><td><p>multi</p><p>para</p></td></tr>
<tr><td>inner<table><tr><td>x</td><td>y</td></tr></table></td><td>z</td></tr></tbody></table><p>after</p>`,
			title: "Distances",
			want:  []string{"From Munich\n\n| city | km |\n| --- | --- |\n| Delhi | 5,921 km |\n| A\\|B | multi para |\n| inner x y | z |\n\nafter"},
		},
		{
			name:    "latin-1 charset decoded",
			content: "<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><p>cr\xe8me br\xfbl\xe9e</p></body></html>",
			title:   "Café", want: []string{"crème brûlée"},
		},
		{
			name: "unclosed tags", content: "<p>one<p>two<li>item<table><tr><td>a<td>b<tr><td>c",
			title: "page", want: []string{"one\n\ntwo", "item", "| a | b |\n| --- | --- |\n| c |  |"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parseString(t, "page.html", tt.content)
			if err != nil {
				t.Fatal(err)
			}
			checkDoc(t, doc, tt.title, "html", tt.want, tt.notWant)
		})
	}
}

func TestParsePDF(t *testing.T) {
	doc, err := Parse(context.Background(), "sample.pdf", bytes.NewReader(readTestdata(t, "sample.pdf")), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, doc, "EU denied boarding rules", "pdf", []string{
		"# Denied boarding in the EU\n\n",
		"Under Regulation 261/2004 a passenger who is denied boarding\nreceives compensation that depends on the flight distance.\n\nThe amounts are:",
		"- 250 EUR for flights of 1500 km or less;\n- 400 EUR for flights between 1500 and 3500 km;\n- 600 EUR for all other flights.",
		"Delhi to Munich: 5,921 km",
		"Überset ✓",
		"Page two ends here.",
	}, nil)
}

func TestParsePDFVersion2Header(t *testing.T) {
	data := bytes.Replace(readTestdata(t, "sample.pdf"), []byte("%PDF-1.4"), []byte("%PDF-2.0"), 1)
	doc, err := Parse(context.Background(), "v2.pdf", bytes.NewReader(data), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc.Markdown, "5,921 km") {
		t.Errorf("markdown lacks the page 2 text:\n%s", doc.Markdown)
	}
}

func TestParsePDFTitleFallback(t *testing.T) {
	data := bytes.Replace(readTestdata(t, "sample.pdf"), []byte("(EU denied boarding rules)"), []byte("(Microsoft Word - ab.docx)"), 1)
	doc, err := Parse(context.Background(), "x.pdf", bytes.NewReader(data), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Denied boarding in the EU" {
		t.Errorf("title = %q, want the first line", doc.Title)
	}
}

func TestParseDOCX(t *testing.T) {
	doc, err := Parse(context.Background(), "handbook.docx", bytes.NewReader(readTestdata(t, "sample.docx")), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, doc, "Airline staff handbook", "docx", []string{
		"# Airline staff handbook\n\n# Compensation\n\nAmounts depend on distance.\nSee the table.\n\n",
		"- 250 EUR up to 1500 km\n- 400 EUR up to 3500 km\n- 600 EUR beyond\n\n## Distances\n\n",
		"| from | to | km |\n| --- | --- | --- |\n| Munich | Delhi | 5,921 |\n| Munich | A\\|B | 1 |\n\n",
		"Boxed note.\n\nLast paragraph with <angle> & ampersand.",
	}, nil)
	if strings.Count(doc.Markdown, "Boxed note.") != 1 {
		t.Errorf("text box fallback repeated:\n%s", doc.Markdown)
	}
}

func TestParseDOCXCoreTitle(t *testing.T) {
	data := buildZip([][2]string{
		{"docProps/core.xml", `<cp:coreProperties xmlns:cp="x" xmlns:dc="y"><dc:title>Core Title</dc:title></cp:coreProperties>`},
		{"word/document.xml", `<w:document ` + wordNS + `><w:body>` + docxPara("Heading1", "First heading") + `</w:body></w:document>`},
	})
	doc, err := Parse(context.Background(), "c.docx", bytes.NewReader(data), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, doc, "Core Title", "docx", []string{"# First heading"}, nil)
}

// badFiles maps every file of testdata/bad to the error Parse must give.
var badFiles = map[string]error{
	"empty.txt":                   ErrEmpty,
	"whitespace.md":               ErrEmpty,
	"empty.html":                  ErrEmpty,
	"scripts-only.html":           ErrEmpty,
	"empty-document.docx":         ErrEmpty,
	"no-text.pdf":                 ErrEmpty,
	"binary-renamed.txt":          ErrBinary,
	"pdf-renamed.txt":             ErrBinary,
	"docx-renamed.md":             ErrBinary,
	"binary.html":                 ErrBinary,
	"truncated.pdf":               ErrMalformed,
	"text-renamed.pdf":            ErrMalformed,
	"encrypted-looking.pdf":       ErrMalformed,
	"cyclic-pages.pdf":            ErrMalformed,
	"huge-xref-size.pdf":          ErrMalformed,
	"unterminated-hex-objstm.pdf": ErrMalformed,
	"cyclic-object-streams.pdf":   ErrMalformed,
	"not-a-zip.docx":              ErrMalformed,
	"not-a-zip-renamed.docx":      ErrMalformed,
	"truncated.docx":              ErrMalformed,
	"no-document.docx":            ErrMalformed,
	"bomb.docx":                   ErrTooLarge,
	"unknown.exe":                 ErrUnsupported,
}

func TestParseBadFiles(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := badFiles[name]
			if !ok {
				t.Fatalf("no expected error listed for testdata/bad/%s", name)
			}
			f, err := os.Open(filepath.Join("testdata", "bad", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			doc, err := Parse(context.Background(), name, f, Limits{}, nil)
			if !errors.Is(err, want) {
				t.Fatalf("err = %v, want %v", err, want)
			}
			if errors.Is(err, errInternal) {
				t.Errorf("a panic was recovered: %v", err)
			}
			if !reflect.DeepEqual(doc, Parsed{}) {
				t.Errorf("doc = %+v, want zero on error", doc)
			}
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
	for name := range badFiles {
		if !seen[name] {
			t.Errorf("testdata/bad/%s is missing (run go test -run TestGeneratedFilesUpToDate -update)", name)
		}
	}
}

func TestParseErrorMessages(t *testing.T) {
	tests := []struct {
		name, file, content string
		want                error
		msg                 string
	}{
		{"unknown extension", "x.numbers", "data", ErrUnsupported, `".numbers"`},
		{"no extension", "README", "data", ErrUnsupported, "no file extension"},
		{"binary", "b.txt", "ab\x00cd", ErrBinary, "file looks binary (NUL bytes / invalid UTF-8)"},
		{"control bytes and invalid utf-8", "b.txt", "ab\x01\x02\x03\x04\x05\x06cd\xff", ErrBinary, "invalid UTF-8 at offset 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseString(t, tt.file, tt.content)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.want, tt.msg)
			}
		})
	}
}

// endless is an input that never ends, to prove reading stops at the cap.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.read += int64(len(p))
	return len(p), nil
}

func TestParseLimits(t *testing.T) {
	pdfData := readTestdata(t, "sample.pdf")
	docx := readTestdata(t, "sample.docx")
	tests := []struct {
		name string
		file string
		data []byte
		lim  Limits
	}{
		{"text over MaxBytes", "a.txt", []byte("0123456789a"), Limits{MaxBytes: 10}},
		{"markdown over MaxBytes", "a.md", []byte("# 0123456789"), Limits{MaxBytes: 10}},
		{"html over MaxBytes", "a.html", bytes.Repeat([]byte("<p>x</p>"), 1000), Limits{MaxBytes: 2000}},
		{"pdf over MaxBytes", "a.pdf", pdfData, Limits{MaxBytes: int64(len(pdfData) - 1)}},
		{"docx over MaxBytes", "a.docx", docx, Limits{MaxBytes: 100}},
		{"pdf over MaxPages", "a.pdf", pdfData, Limits{MaxPages: 1}},
		{"pdf streams over MaxInflated", "a.pdf", pdfData, Limits{MaxInflated: 200}},
		{"docx over MaxInflated", "a.docx", docx, Limits{MaxInflated: 1000}},
		{"html output over MaxInflated", "a.html", bytes.Repeat([]byte("<p>x</p>"), 1000), Limits{MaxInflated: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(context.Background(), tt.file, bytes.NewReader(tt.data), tt.lim, nil)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
		})
	}
	for _, name := range []string{"a.txt", "a.md", "a.html", "a.pdf", "a.docx"} {
		t.Run("endless "+name, func(t *testing.T) {
			src := &endless{}
			_, err := Parse(context.Background(), name, src, Limits{MaxBytes: 1 << 16}, nil)
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("err = %v, want ErrTooLarge", err)
			}
			if src.read > 1<<16+64<<10 {
				t.Errorf("read %d bytes, want about MaxBytes", src.read)
			}
		})
	}
}

func TestParseExactlyMaxBytes(t *testing.T) {
	doc, err := Parse(context.Background(), "a.txt", strings.NewReader("0123456789"), Limits{MaxBytes: 10}, nil)
	if err != nil || doc.Markdown != "0123456789" {
		t.Fatalf("doc = %+v, err = %v", doc, err)
	}
}

func TestLimitsDefaults(t *testing.T) {
	got := Limits{MaxBytes: -1}.withDefaults()
	want := Limits{MaxBytes: 25 << 20, MaxInflated: 100 << 20, MaxPages: 2000}
	if got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
}

func TestSupported(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"a.txt", true}, {"A.MD", true}, {"x/y.markdown", true}, {"p.html", true}, {"p.HTM", true},
		{"d.pdf", true}, {"d.docx", true}, {"d.doc", false}, {"x.xlsx", true}, {"s.PPTX", true}, {"t.csv", true}, {"x.numbers", false}, {"README", false},
		{"archive.pdf.zip", false}, {`C:\dir\file.PDF`, true}, {".txt", true},
	}
	for _, tt := range tests {
		if got := Supported(tt.name); got != tt.want {
			t.Errorf("Supported(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseReadsThroughReaderOnly(t *testing.T) {
	data := readTestdata(t, "sample.docx")
	_, err := Parse(context.Background(), "d.docx", io.MultiReader(bytes.NewReader(data[:100]), bytes.NewReader(data[100:])), Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

func TestParseDOCXInflatedBytesCounted(t *testing.T) {
	body := func(n int) string {
		return `<w:document ` + wordNS + `><w:body><w:p><w:r><w:t>` + strings.Repeat("a", n) + `</w:t></w:r></w:p></w:body></w:document>`
	}
	// Each entry alone fits the cap; together they pass it.
	data := buildZip([][2]string{
		{"word/styles.xml", `<w:styles ` + wordNS + `>` + strings.Repeat(" ", 6000) + `</w:styles>`},
		{"word/document.xml", body(6000)},
	})
	_, err := Parse(context.Background(), "two.docx", bytes.NewReader(data), Limits{MaxInflated: 10000}, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "inflated content") {
		t.Fatalf("err = %v, want ErrTooLarge from the inflated byte count", err)
	}
	if _, err := Parse(context.Background(), "ok.docx", bytes.NewReader(data), Limits{MaxInflated: 20000}, nil); err != nil {
		t.Fatalf("under the cap: %v", err)
	}
}

func TestParseDOCXLyingSizes(t *testing.T) {
	data := bombDOCX(4 << 20)
	// Make the central directory (and local header) claim 1000 bytes inflated.
	for _, sig := range []string{"PK\x01\x02", "PK\x03\x04"} {
		i := bytes.Index(data, []byte(sig))
		off := 24
		if sig == "PK\x03\x04" {
			off = 22
		}
		copy(data[i+off:], []byte{0xe8, 0x03, 0, 0})
	}
	_, err := Parse(context.Background(), "liar.docx", bytes.NewReader(data), Limits{}, nil)
	if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want a refusal", err)
	}
}
