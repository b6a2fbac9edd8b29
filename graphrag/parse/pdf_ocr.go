package parse

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hopwise/hopwise/graphrag/parse/ocr"
)

// scannedError is a PDF whose pages hold no text: scanned, most likely. It is
// ErrEmpty, and the PDF child reads such a file again through OCR when the
// tools are installed.
type scannedError struct{ pages int }

func (e *scannedError) Error() string {
	return fmt.Sprintf("%v: no extractable text in %d pages: it looks scanned; Hopwise reads scanned PDFs "+
		"once Debian's tesseract-ocr and poppler-utils are installed (%s) and it is restarted", ErrEmpty, e.pages, ocr.Install)
}

func (e *scannedError) Unwrap() error { return ErrEmpty }

// OCR says whether scanned PDFs are read, for the status page: the tools
// found (detected once, at the first call) or why there are none.
func OCR() (ocr.Tools, error) { return ocr.Detect() }

// pdfText reads a PDF's text, and when it has none and tools are given,
// reads its pages through OCR within timeout.
func pdfText(data []byte, lim Limits, tools *ocr.Tools, timeout time.Duration) (Parsed, error) {
	keep := append([]byte(nil), data...) // parsePDFData may change data
	doc, err := parsePDFData(data, lim)
	var scanned *scannedError
	if tools == nil || !tools.Available() || !errors.As(err, &scanned) {
		return doc, err
	}
	return ocrPDF(keep, scanned.pages, lim, *tools, timeout)
}

// ocrTimeout is how long OCR may take over one scanned PDF (at about a second
// a page), beyond the time reading its text may take. A variable so that
// tests can shorten it.
var ocrTimeout = 10 * time.Minute

// ocrRunning is set once OCR starts: from then on the PDF child's deadline
// is OCR's (see runPDFChild).
var ocrRunning atomic.Bool

// ocrPDF writes the OCR text of each page as paragraphs, each page a page of
// the document.
func ocrPDF(data []byte, pages int, lim Limits, tools ocr.Tools, timeout time.Duration) (Parsed, error) {
	ocrRunning.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	texts, err := ocr.Pages(ctx, tools, data, min(pages, lim.MaxPages), lim.MaxInflated)
	if errors.Is(err, context.DeadlineExceeded) {
		return Parsed{}, fmt.Errorf("%w: this scanned PDF could not be read: OCR of its %d pages took too long (more than %v)", ErrTooLarge, pages, timeout.Round(time.Second))
	}
	if err != nil {
		return Parsed{}, err
	}
	w := newMDWriter(lim.MaxInflated)
	for i, text := range texts {
		w.Page(i + 1)
		for para := range strings.SplitSeq(normalizeNewlines(text), "\n\n") {
			w.Paragraph(para)
		}
	}
	if w.err != nil {
		return Parsed{}, w.err
	}
	md := w.String()
	if strings.TrimSpace(md) == "" {
		return Parsed{}, fmt.Errorf("%w: no text in %d scanned pages, OCR included", ErrEmpty, pages)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(md), "\n")
	return Parsed{Title: cleanTitle(first), Format: "pdf", Markdown: md, Pages: w.pages}, nil
}

// detectOCR is OCR, a variable so that tests can compare the child with the
// in-process parser, which never runs OCR.
var detectOCR = OCR

// ocrTools are the OCR tools the PDF child is given: those detected, nil
// when there are none.
func ocrTools() *ocr.Tools {
	t, err := detectOCR()
	if err != nil {
		return nil
	}
	return &t
}
