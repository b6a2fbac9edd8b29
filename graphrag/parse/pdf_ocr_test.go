package parse

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/ocr"
)

// noOCR makes Parse behave as without tesseract until the test ends.
func noOCR(t *testing.T) {
	t.Helper()
	detectOCR = func() (ocr.Tools, error) { return ocr.Tools{}, errors.New("turned off by the test") }
	t.Cleanup(func() { detectOCR = OCR })
}

// TestScannedPDF: a PDF of page images (ocr/testdata/scanned.pdf, made by Ghostscript's pdfimage8 device
// from scanned.ps) is read through OCR in the PDF child when tesseract is installed, each page a page of
// the document; without it, the error says how to enable OCR.
func TestScannedPDF(t *testing.T) {
	data, err := os.ReadFile("ocr/testdata/scanned.pdf")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("without OCR", func(t *testing.T) {
		noOCR(t)
		_, err := Parse(context.Background(), "notice.pdf", strings.NewReader(string(data)), Limits{}, nil)
		if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "apt-get install tesseract-ocr poppler-utils") || !strings.Contains(err.Error(), "notice.pdf") {
			t.Errorf("err = %v, want ErrEmpty saying how to enable OCR", err)
		}
	})
	t.Run("with OCR", func(t *testing.T) {
		if _, err := OCR(); err != nil {
			t.Skipf("OCR tools: %v (.ci/run installs them)", err)
		}
		doc, err := Parse(context.Background(), "notice.pdf", strings.NewReader(string(data)), Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for text, page := range map[string]int{"Scanned passenger notice": 1, "5,921 km from Delhi to Munich receive 600 EUR.": 1, "Page two: keep your boarding pass.": 2} {
			at := strings.Index(doc.Markdown, text)
			if at < 0 {
				t.Errorf("OCR text lacks %q:\n%s", text, doc.Markdown)
				continue
			}
			if got := doc.PageAt(at); got != page {
				t.Errorf("%q on page %d, want %d", text, got, page)
			}
		}
		if doc.Title != "Scanned passenger notice" || doc.Format != "pdf" {
			t.Errorf("title %q, format %q", doc.Title, doc.Format)
		}
	})
}
