package epub

import (
	"archive/zip"
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

var update = flag.Bool("update", false, "write testdata/guide.epub again")

func chapter(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>` +
		title + `</title><link rel="stylesheet" href="../style.css"/></head><body>` + body + `</body></html>`
}

// guideBook is testdata/guide.epub, laid out as EPUB 3 writers do: the package document in a folder of
// its own (OEBPS/content.opf), a file name with a space (escaped in the manifest), a navigation document
// and a stylesheet that are not chapters, and a spine whose order differs from the manifest's.
func guideBook() []byte {
	files := [][2]string{
		{"mimetype", "application/epub+zip"},
		{"META-INF/container.xml", `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`},
		{"OEBPS/content.opf", `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:1</dc:identifier><dc:title>Travelling from  Munich</dc:title><dc:language>en</dc:language></metadata>` +
			`<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="css" href="style.css" media-type="text/css"/>` +
			`<item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/chapter2.xhtml" media-type="application/xhtml+xml"/></manifest>` +
			`<spine><itemref idref="c2"/><itemref idref="c1"/><itemref idref="css"/><itemref idref="missing"/></spine></package>`},
		{"OEBPS/nav.xhtml", chapter("Contents", `<nav epub:type="toc"><ol><li><a href="text/chapter2.xhtml">Compensation</a></li></ol></nav>`)},
		{"OEBPS/style.css", "body { font-family: serif }"},
		{"OEBPS/text/chapter2.xhtml", chapter("Compensation", `<h1>Compensation</h1><p>A flight of 5,921 km from Delhi to Munich earns 600 EUR.</p><table><tr><th>km</th><th>EUR</th></tr><tr><td>1,500</td><td>250</td></tr></table>`)},
		{"OEBPS/text/chapter 1.xhtml", chapter("Airports", `<h1>Airports</h1><p>Munich Airport lies near Freising.</p><ul><li>Terminal 1</li><li>Terminal 2</li></ul>`)},
	}
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

func TestFixtureUpToDate(t *testing.T) {
	path := filepath.Join("testdata", "guide.epub")
	if *update {
		if err := os.WriteFile(path, guideBook(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, guideBook()) {
		t.Errorf("%s differs from its generator or is missing (%v): run go test -update", path, err)
	}
}

func TestRead(t *testing.T) {
	book, err := Read(guideBook(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if book.Title != "Travelling from Munich" || len(book.Chapters) != 2 {
		t.Fatalf("title %q, %d chapters", book.Title, len(book.Chapters))
	}
	if !strings.Contains(string(book.Chapters[0]), "5,921 km") || !strings.Contains(string(book.Chapters[1]), "Freising") {
		t.Errorf("chapters out of spine order:\n%s\n---\n%s", book.Chapters[0], book.Chapters[1])
	}
}

func TestReadErrors(t *testing.T) {
	good := guideBook()
	tests := []struct {
		name string
		data []byte
		max  int64
		want error
		msg  string
	}{
		{"not a zip", []byte("chapter one"), 1 << 20, parseerr.ErrMalformed, "not a zip"},
		{"truncated", good[:len(good)/2], 1 << 20, parseerr.ErrMalformed, "epub"},
		{"no container", zipOf(t, "OEBPS/content.opf", "<package/>"), 1 << 20, parseerr.ErrMalformed, "META-INF/container.xml"},
		{"empty spine", zipOf(t, "META-INF/container.xml", `<container><rootfiles><rootfile full-path="META-INF/container.xml"/></rootfiles></container>`), 1 << 20, parseerr.ErrMalformed, "no chapters"},
		{"past the cap", good, 600, parseerr.ErrTooLarge, "inflated"},
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

// FuzzRead: any input, whole or as the package document of a valid container, ends in a book with
// chapters or an error wrapping a sentinel.
func FuzzRead(f *testing.F) {
	f.Add(guideBook())
	f.Add([]byte(`<package><manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/></spine></package>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(data []byte) {
			book, err := Read(data, 1<<20)
			if err == nil && len(book.Chapters) == 0 {
				t.Fatal("no error and no chapter")
			}
			if err != nil && !errors.Is(err, parseerr.ErrMalformed) && !errors.Is(err, parseerr.ErrTooLarge) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
		}
		check(data)
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, f := range [][2]string{
			{"META-INF/container.xml", `<container><rootfiles><rootfile full-path="p.opf"/></rootfiles></container>`},
			{"p.opf", string(data)}, {"a.xhtml", string(data)},
		} {
			w, _ := zw.Create(f[0])
			w.Write([]byte(f[1]))
		}
		zw.Close()
		check(b.Bytes())
	})
}
