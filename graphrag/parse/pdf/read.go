// Package pdf reads the text of a PDF with github.com/ledongthuc/pdf for the
// file's objects and its own content-stream interpreter (content.go, with
// fonts, CMaps and a lexer) for the text each page shows, laid out as lines
// and paragraphs and written to a Writer (parse's Markdown writer): headings
// from font sizes, bulleted lines as list items. The library trusts the file
// and can crash on crafted ones: guard.go checks what it would trust before
// it runs and caps its work while it runs, and parse reads PDFs in a child
// process (parse's pdf_child.go) for what no guard foresees.
package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ledongthuc/pdf"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// Limits caps the work of one Read.
type Limits struct {
	MaxInflated int64 // bytes decoded from streams, and bytes of text extracted
	MaxPages    int
}

// Writer receives the blocks of a document in order. Page says that what
// follows belongs to page n (from 1); Err is non-nil once the writer will take
// no more (its output passed its cap); String is what it holds.
type Writer interface {
	Page(n int)
	Heading(level int, text string)
	ListItem(depth int, text string)
	Paragraph(text string)
	Err() error
	String() string
}

// Document is what Read found besides the text it wrote: the number of
// pages, and the document information Title when any text was found.
type Document struct {
	Pages int
	Title string // as the file gives it, made valid UTF-8
}

// Read extracts the text of every page of the PDF held in data, writing it to
// w. The library needs random access, so the PDF is held in memory once;
// decoded streams and the extracted text count against lim.MaxInflated and
// pages against lim.MaxPages (parseerr.ErrTooLarge past either). Read may
// change data (a PDF 2.0 header). A file whose pages hold no text (scanned,
// most likely) is no error: w then holds nothing and Document gives its
// pages. A page that fails keeps what it had; when no page gave text, the
// first page's failure is the error (parseerr.ErrMalformed). A panic of the
// library is an error (parseerr.ErrMalformed), one of this package's own also
// parseerr.ErrInternal.
func Read(data []byte, lim Limits, w Writer) (doc Document, err error) {
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		copy(data[5:], "1.7") // the library reads PDF 2.0 files but refuses their header
	}
	if err := checkPDFNumbers(data); err != nil {
		return Document{}, err
	}
	if err := checkObjectStreams(data, lim.MaxInflated); err != nil {
		return Document{}, err
	}
	defer func() {
		if v := recover(); v != nil {
			doc, err = Document{}, pdfPanicError(v, ownPanic())
		}
	}()
	rd, err := pdf.NewReader(newBudgetReaderAt(data), int64(len(data)))
	if err != nil {
		return Document{}, pdfOpenError(err)
	}
	pages, err := pdfPages(rd.Trailer().Key("Root").Key("Pages"), lim.MaxPages)
	if err != nil {
		return Document{}, err
	}
	e := &pdfExtractor{lim: lim, fonts: map[string]*pdfFont{}, fallbackFont: &pdfFont{dw: 1000, enc: winAnsi{}}}
	var lines []pdfLine
	var firstErr error
	text := 0
	for i, p := range pages {
		page, err := e.pageText(p)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if len(page) > 0 {
			page[0].para = true
		}
		for k := range page {
			page[k].page = i + 1
		}
		lines = append(lines, page...)
		if text += e.out.bytes; int64(text) > lim.MaxInflated {
			return Document{}, fmt.Errorf("%w: pdf text passes %d bytes", parseerr.ErrTooLarge, lim.MaxInflated)
		}
	}
	writePDFLines(w, lines)
	if w.Err() != nil {
		return Document{}, w.Err()
	}
	if strings.TrimSpace(w.String()) == "" {
		if firstErr != nil {
			return Document{}, fmt.Errorf("%w: pdf: %v", parseerr.ErrMalformed, firstErr)
		}
		return Document{Pages: len(pages)}, nil
	}
	return Document{Pages: len(pages), Title: strings.ToValidUTF8(rd.Trailer().Key("Info").Key("Title").Text(), "")}, nil
}

func pdfPanicError(v any, own bool) error {
	if l, ok := v.(pdfLimit); ok {
		return l.err
	}
	return parseerr.Recovered("pdf", v, own)
}

func pdfOpenError(err error) error {
	switch {
	case errors.Is(err, parseerr.ErrTooLarge):
		return err
	case errors.Is(err, pdf.ErrInvalidPassword):
		return fmt.Errorf("%w: pdf is encrypted with a password", parseerr.ErrUnsupported)
	}
	return fmt.Errorf("%w: pdf: %v", parseerr.ErrMalformed, err)
}

// pdfPages walks the page tree in document order. Depth and visits are
// bounded, so a cyclic tree ends with an error.
func pdfPages(root pdf.Value, maxPages int) ([]pdf.Value, error) {
	if root.Kind() != pdf.Dict {
		return nil, fmt.Errorf("%w: pdf has no page tree", parseerr.ErrMalformed)
	}
	type node struct {
		v     pdf.Value
		depth int
	}
	stack := []node{{root, 0}}
	maxVisits := 4*maxPages + 1000
	var pages []pdf.Value
	for visits := 0; len(stack) > 0; visits++ {
		if visits > maxVisits {
			return nil, fmt.Errorf("%w: pdf page tree is cyclic or too large", parseerr.ErrMalformed)
		}
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.v.Kind() != pdf.Dict {
			continue
		}
		kids := n.v.Key("Kids")
		if kids.Kind() == pdf.Array && n.v.Key("Type").Name() != "Page" {
			if n.depth >= 64 || len(stack)+kids.Len() > maxVisits {
				return nil, fmt.Errorf("%w: pdf page tree is cyclic or too large", parseerr.ErrMalformed)
			}
			for i := kids.Len() - 1; i >= 0; i-- {
				stack = append(stack, node{kids.Index(i), n.depth + 1})
			}
			continue
		}
		if pages = append(pages, n.v); len(pages) > maxPages {
			return nil, fmt.Errorf("%w: pdf has more than %d pages", parseerr.ErrTooLarge, maxPages)
		}
	}
	return pages, nil
}

// pdfExtractor holds what is shared by the pages of one document.
type pdfExtractor struct {
	lim          Limits
	inflated     int64 // bytes decoded from streams so far
	fonts        map[string]*pdfFont
	fallbackFont *pdfFont
	out          *pdfTextOut
}

// pageText extracts one page. A page that fails returns what it had and
// the reason; running out of a budget aborts the document.
func (e *pdfExtractor) pageText(p pdf.Value) (lines []pdfLine, err error) {
	e.out = &pdfTextOut{}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(pdfLimit); ok || ownPanic() {
				panic(v)
			}
			e.out.endLine(false)
			lines, err = e.out.lines, fmt.Errorf("%v", v)
		}
	}()
	var content []byte
	switch c := p.Key("Contents"); c.Kind() {
	case pdf.Stream:
		content, _ = e.streamBytes(c, -1)
	case pdf.Array:
		for i := range min(c.Len(), 4096) {
			part, _ := e.streamBytes(c.Index(i), -1)
			content = append(append(content, part...), '\n')
		}
	}
	e.runContent(content, pageResources(p), gstate{ctm: identity, th: 1}, 0)
	e.out.endLine(false)
	return e.out.lines, nil
}

// pageResources finds the resources a page has or inherits.
func pageResources(p pdf.Value) pdf.Value {
	for range 32 {
		if p.IsNull() {
			break
		}
		if res := p.Key("Resources"); !res.IsNull() {
			return res
		}
		p = p.Key("Parent")
	}
	return pdf.Value{}
}

// streamBytes decodes a stream. It returns ok=false when the stream passes
// capOne bytes (capOne < 0: no cap of its own), and panics with pdfLimit
// when the document's decoded total passes lim.MaxInflated.
func (e *pdfExtractor) streamBytes(v pdf.Value, capOne int64) ([]byte, bool) {
	if v.Kind() != pdf.Stream {
		return nil, false
	}
	left := e.lim.MaxInflated - e.inflated
	limit := left
	if capOne >= 0 && capOne < left {
		limit = capOne
	}
	rc := v.Reader()
	defer rc.Close()
	var buf bytes.Buffer
	n, _ := buf.ReadFrom(io.LimitReader(rc, limit+1))
	e.inflated += min(n, limit)
	if n > limit {
		if limit < left {
			return nil, false
		}
		panic(pdfLimit{fmt.Errorf("%w: pdf streams decode to more than %d bytes", parseerr.ErrTooLarge, e.lim.MaxInflated)})
	}
	return buf.Bytes(), true
}
