// Package epub reads the chapters of an EPUB book (.epub, versions 2 and 3):
// META-INF/container.xml names the package document, whose spine gives the
// reading order of its XHTML chapters. Parse writes each chapter's text with
// its HTML reader.
package epub

import (
	"archive/zip"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
	"github.com/hopwise/hopwise/graphrag/parse/zipguard"
)

// Book is what Read found: the title from the package metadata ("" when
// unset) and the XHTML of each chapter in reading order.
type Book struct {
	Title    string
	Chapters [][]byte
}

// Read reads a book held in data. Every byte inflated from the archive
// counts against maxInflated (parseerr.ErrTooLarge past it), with the entry
// cap of zipguard.
func Read(data []byte, maxInflated int64) (Book, error) {
	a, err := zipguard.Open(data, maxInflated, "epub")
	if err != nil {
		return Book{}, err
	}
	opf, err := rootFile(a)
	if err != nil {
		return Book{}, err
	}
	pkg, err := readPackage(a, opf)
	if err != nil {
		return Book{}, err
	}
	book := Book{Title: strings.Join(strings.Fields(pkg.Title), " ")}
	items := map[string]item{}
	for _, it := range pkg.Items {
		items[it.ID] = it
	}
	for _, ref := range pkg.Spine {
		it, ok := items[ref.IDRef]
		if !ok || !strings.Contains(it.MediaType, "html") {
			continue
		}
		href, err := url.PathUnescape(it.Href)
		if err != nil {
			href = it.Href
		}
		f := a.Find(path.Join(path.Dir(opf), href))
		if f == nil {
			continue
		}
		b, err := readAll(a, f)
		if err != nil {
			return Book{}, err
		}
		book.Chapters = append(book.Chapters, b)
	}
	if len(book.Chapters) == 0 {
		return Book{}, fmt.Errorf("%w: epub has no chapters in its spine", parseerr.ErrMalformed)
	}
	return book, nil
}

// rootFile is the package document's path, from META-INF/container.xml.
func rootFile(a *zipguard.Archive) (string, error) {
	var c struct {
		Rootfiles []struct {
			FullPath string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := decode(a, "META-INF/container.xml", &c); err != nil {
		return "", err
	}
	if len(c.Rootfiles) == 0 || c.Rootfiles[0].FullPath == "" {
		return "", fmt.Errorf("%w: epub container names no package document", parseerr.ErrMalformed)
	}
	return strings.TrimPrefix(c.Rootfiles[0].FullPath, "/"), nil
}

type item struct {
	ID        string `xml:"id,attr"`
	Href      string `xml:"href,attr"`
	MediaType string `xml:"media-type,attr"`
}

type packageDoc struct {
	Title string `xml:"metadata>title"`
	Items []item `xml:"manifest>item"`
	Spine []struct {
		IDRef string `xml:"idref,attr"`
	} `xml:"spine>itemref"`
}

func readPackage(a *zipguard.Archive, opf string) (packageDoc, error) {
	var p packageDoc
	err := decode(a, opf, &p)
	return p, err
}

// decode unmarshals one XML part; a missing part is ErrMalformed.
func decode(a *zipguard.Archive, name string, v any) error {
	f := a.Find(name)
	if f == nil {
		return fmt.Errorf("%w: epub has no %s", parseerr.ErrMalformed, name)
	}
	rc, err := a.Open(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := zipguard.XMLDecoder(rc).Decode(v); err != nil {
		return a.ReadError(name, err)
	}
	return nil
}

// readAll reads one entry through the archive's budget.
func readAll(a *zipguard.Archive, f *zip.File) ([]byte, error) {
	rc, err := a.Open(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, a.ReadError(f.Name, err)
	}
	return b, nil
}
