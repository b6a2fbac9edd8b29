package parse

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hopwise/hopwise/graphrag/parse/pdf"
)

// parsePDF extracts the text of every page in this process. The PDF is held
// in memory once (the reader needs random access); decoded streams count
// against lim.MaxInflated and pages against lim.MaxPages. Parse does not
// call it directly but through parsePDFInChild (pdf_child.go), because the
// PDF library can crash the process on crafted files.
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

// parsePDFData is parsePDF on bytes readPDF accepted, read by package pdf
// into Markdown; it may change data. A PDF without text is a scannedError.
func parsePDFData(data []byte, lim Limits) (Parsed, error) {
	w := newMDWriter(lim.MaxInflated)
	doc, err := pdf.Read(data, pdf.Limits{MaxInflated: lim.MaxInflated, MaxPages: lim.MaxPages}, w)
	if err != nil {
		return Parsed{}, err
	}
	md := w.String()
	if strings.TrimSpace(md) == "" {
		return Parsed{}, &scannedError{pages: doc.Pages}
	}
	return Parsed{Title: pdfTitle(doc.Title, md), Format: "pdf", Markdown: md, Pages: w.pages}, nil
}

// pdfTitle is the document information Title unless it looks like a file
// name, else a short first line, else empty (Parse then uses the file name).
func pdfTitle(info, md string) string {
	t := cleanTitle(info)
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
