package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// parsePDF extracts the text of every page in this process. The PDF is held
// in memory once (the library needs random access); decoded streams count
// against lim.MaxInflated and pages against lim.MaxPages. Parse does not
// call it directly but through parsePDFInChild (pdf_child.go), because the
// library can crash the process on crafted files.
func parsePDF(_ string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readPDF(r, lim)
	if err != nil {
		return Parsed{}, err
	}
	return parsePDFData(data, lim)
}

// readPDF reads a whole PDF and checks that it is not empty and starts
// like one.
func readPDF(r io.Reader, lim Limits) ([]byte, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return nil, fmt.Errorf("%w: not a PDF (no %%PDF- header)", ErrMalformed)
	}
	return data, nil
}

// parsePDFData is parsePDF on bytes readPDF accepted; it may change data.
func parsePDFData(data []byte, lim Limits) (doc Parsed, err error) {
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		copy(data[5:], "1.7") // the library reads PDF 2.0 files but refuses their header
	}
	if err := checkPDFNumbers(data); err != nil {
		return Parsed{}, err
	}
	if err := checkObjectStreams(data, lim.MaxInflated); err != nil {
		return Parsed{}, err
	}
	defer func() {
		if v := recover(); v != nil {
			doc, err = Parsed{}, pdfPanicError(v, ownPanic())
		}
	}()
	rd, err := pdf.NewReader(newBudgetReaderAt(data), int64(len(data)))
	if err != nil {
		return Parsed{}, pdfOpenError(err)
	}
	pages, err := pdfPages(rd.Trailer().Key("Root").Key("Pages"), lim.MaxPages)
	if err != nil {
		return Parsed{}, err
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
			return Parsed{}, fmt.Errorf("%w: pdf text passes %d bytes", ErrTooLarge, lim.MaxInflated)
		}
	}
	w := newMDWriter(lim.MaxInflated)
	writePDFLines(w, lines)
	if w.err != nil {
		return Parsed{}, w.err
	}
	md := w.String()
	if strings.TrimSpace(md) == "" {
		if firstErr != nil {
			return Parsed{}, fmt.Errorf("%w: pdf: %v", ErrMalformed, firstErr)
		}
		return Parsed{}, &scannedError{pages: len(pages)}
	}
	return Parsed{Title: pdfTitle(rd, md), Format: "pdf", Markdown: md, Pages: w.pages}, nil
}

func pdfPanicError(v any, own bool) error {
	if l, ok := v.(pdfLimit); ok {
		return l.err
	}
	return recoveredError("pdf", v, own)
}

func pdfOpenError(err error) error {
	switch {
	case errors.Is(err, ErrTooLarge):
		return err
	case errors.Is(err, pdf.ErrInvalidPassword):
		return fmt.Errorf("%w: pdf is encrypted with a password", ErrUnsupported)
	}
	return fmt.Errorf("%w: pdf: %v", ErrMalformed, err)
}

// pdfPages walks the page tree in document order. Depth and visits are
// bounded, so a cyclic tree ends with an error.
func pdfPages(root pdf.Value, maxPages int) ([]pdf.Value, error) {
	if root.Kind() != pdf.Dict {
		return nil, fmt.Errorf("%w: pdf has no page tree", ErrMalformed)
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
			return nil, fmt.Errorf("%w: pdf page tree is cyclic or too large", ErrMalformed)
		}
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.v.Kind() != pdf.Dict {
			continue
		}
		kids := n.v.Key("Kids")
		if kids.Kind() == pdf.Array && n.v.Key("Type").Name() != "Page" {
			if n.depth >= 64 || len(stack)+kids.Len() > maxVisits {
				return nil, fmt.Errorf("%w: pdf page tree is cyclic or too large", ErrMalformed)
			}
			for i := kids.Len() - 1; i >= 0; i-- {
				stack = append(stack, node{kids.Index(i), n.depth + 1})
			}
			continue
		}
		if pages = append(pages, n.v); len(pages) > maxPages {
			return nil, fmt.Errorf("%w: pdf has more than %d pages", ErrTooLarge, maxPages)
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
		panic(pdfLimit{fmt.Errorf("%w: pdf streams decode to more than %d bytes", ErrTooLarge, e.lim.MaxInflated)})
	}
	return buf.Bytes(), true
}

// pdfTitle is the document information Title unless it looks like a file
// name, else a short first line, else empty (Parse then uses the file name).
func pdfTitle(rd *pdf.Reader, md string) string {
	t := cleanTitle(strings.ToValidUTF8(rd.Trailer().Key("Info").Key("Title").Text(), ""))
	lower := strings.ToLower(t)
	looksLikeFile := strings.HasPrefix(lower, "microsoft word - ") || strings.EqualFold(t, "untitled")
	for _, ext := range []string{".doc", ".docx", ".pdf", ".tex", ".dvi", ".odt", ".rtf", ".txt"} {
		looksLikeFile = looksLikeFile || strings.HasSuffix(lower, ext)
	}
	if t != "" && !looksLikeFile {
		return t
	}
	first, _, _ := strings.Cut(strings.TrimSpace(md), "\n")
	first = strings.TrimLeft(strings.TrimSpace(first), `\#- `)
	if first != "" && utf8.RuneCountInString(first) <= 100 {
		return cleanTitle(first)
	}
	return ""
}
