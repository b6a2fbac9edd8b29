// Package parse turns uploaded documents (.txt, .md, .html, .pdf, .docx,
// .xlsx, .pptx, .csv, .epub, .odt) into Markdown, so that one chunker serves
// every format: headings as "#", list items as "- ", tables as pipe tables
// and paragraphs separated by blank lines. The PDF, HTML, Word, spreadsheet,
// slide, CSV, EPUB, OpenDocument and OCR readers are packages of their own
// (pdf, html, docx, xlsx, pptx, csvtable, epub, odt, ocr); parse writes their
// Markdown (pdf, html and docx through the Writer each asks for, which parse's
// Markdown writer is).
//
// Parse reads its input once, through a size limit, and never panics: input
// that cannot be read is reported with one of the sentinel errors below,
// wrapped with a readable reason. A binary that parses PDFs calls
// ServePDFChild first thing in main (and in TestMain), so that it can read
// them in a child process.
package parse

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// Sentinel errors (the values of package parseerr, which the format packages
// wrap); Parse wraps them with detail, so test them with errors.Is.
var (
	// ErrUnsupported: the file type is not one Parse reads.
	ErrUnsupported = parseerr.ErrUnsupported
	// ErrTooLarge: the input, its inflated content or its page count passes a Limits cap.
	ErrTooLarge = parseerr.ErrTooLarge
	// ErrEmpty: the file holds no text (empty, whitespace only, or no extractable text).
	ErrEmpty = parseerr.ErrEmpty
	// ErrBinary: a text file that looks binary (NUL bytes, invalid UTF-8, binary magic bytes).
	ErrBinary = parseerr.ErrBinary
	// ErrMalformed: the content does not match its format (truncated PDF, DOCX that is not a zip...).
	ErrMalformed = parseerr.ErrMalformed
)

// errInternal marks a recovered panic raised by Hopwise's own parsing code:
// a bug, as opposed to a library failing on malformed input. Fuzz tests
// fail on it; callers see ErrMalformed.
var errInternal = parseerr.ErrInternal

// Default limits, used for any Limits field that is zero or negative.
const (
	DefaultMaxBytes    int64 = 25 << 20
	DefaultMaxInflated int64 = 100 << 20
	DefaultMaxPages          = 2000
)

// Limits caps the work Parse does on one file. Zero fields take the defaults.
type Limits struct {
	MaxBytes    int64 // bytes read from the input
	MaxInflated int64 // bytes decompressed from a DOCX zip or from PDF streams, and Markdown produced
	MaxPages    int   // PDF pages
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxInflated <= 0 {
		l.MaxInflated = DefaultMaxInflated
	}
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	return l
}

// Parsed is a file as Parse read it. Markdown is valid UTF-8 and never blank. (The stored document, with
// its ID, status and counts, is graphrag.Document.)
type Parsed struct {
	Title    string // never empty: from the content, else the file name
	Format   string // "text", "markdown", "html", "pdf", "docx", "xlsx", "pptx", "csv", "epub" or "odt"
	Markdown string
	// Pages are where each PDF page, PPTX slide or XLSX sheet starts in Markdown, by increasing Offset;
	// none for formats without pages.
	Pages []Page
}

// Page is where a page (a slide, a sheet) starts: Number is its 1-based position in the file and Offset a
// byte offset in Parsed.Markdown at or before the start of its first block.
type Page struct {
	Number int
	Offset int
}

// PageAt is the number of the page that the Markdown at offset belongs to, 0 when the format has no pages.
func (p Parsed) PageAt(offset int) int {
	n := 0
	for _, pg := range p.Pages {
		if pg.Offset > offset {
			break
		}
		n = pg.Number
	}
	if n == 0 && len(p.Pages) > 0 {
		n = p.Pages[0].Number
	}
	return n
}

type parser func(name string, r io.Reader, lim Limits) (Parsed, error)

var parsers = map[string]parser{
	".txt":      parseText,
	".text":     parseText,
	".md":       parseMarkdown,
	".markdown": parseMarkdown,
	".html":     parseHTML,
	".htm":      parseHTML,
	".pdf":      parsePDF, // in process; Parse reads PDFs in a child (parsePDFInChild)
	".docx":     parseDOCX,
	".xlsx":     parseXLSX,
	".pptx":     parsePPTX,
	".csv":      parseCSV,
	".tsv":      parseCSV,
	".epub":     parseEPUB,
	".odt":      parseODT,
}

// Supported reports whether Parse reads files with this name's extension.
func Supported(filename string) bool {
	_, ok := parsers[extension(filename)]
	return ok
}

// Parse reads one document, choosing the format by the file name's extension
// and checking that the content matches it. It reads at most lim.MaxBytes+1
// bytes from r, once. A PDF is read in a child process (see pdf_child.go), so
// a file that crashes the PDF library fails alone; ending ctx stops the child
// at once, and Parse then returns ctx's error. log receives what went wrong
// with a child beyond the file's own error (nil: nowhere).
func Parse(ctx context.Context, filename string, r io.Reader, lim Limits, log *slog.Logger) (Parsed, error) {
	return parseFile(ctx, filename, r, lim, log, false)
}

// parseInProcess is Parse with every format read in this process: the fuzz
// targets use it, as starting a process per input would be too slow.
func parseInProcess(filename string, r io.Reader, lim Limits) (Parsed, error) {
	return parseFile(context.Background(), filename, r, lim, nil, true)
}

func parseFile(ctx context.Context, filename string, r io.Reader, lim Limits, log *slog.Logger, inProcess bool) (doc Parsed, err error) {
	defer func() {
		if v := recover(); v != nil {
			doc, err = Parsed{}, fmt.Errorf("parse %s: %w", baseName(filename), parseerr.Recovered("panic", v, true))
		}
	}()
	if err := ctx.Err(); err != nil {
		return Parsed{}, fmt.Errorf("parse %s: %w", baseName(filename), err)
	}
	ext := extension(filename)
	p, ok := parsers[ext]
	if !ok {
		if ext == "" {
			return Parsed{}, fmt.Errorf("parse %s: %w: no file extension", baseName(filename), ErrUnsupported)
		}
		return Parsed{}, fmt.Errorf("parse %s: %w: %q", baseName(filename), ErrUnsupported, ext)
	}
	if ext == ".pdf" && !inProcess {
		doc, err = parsePDFInChild(ctx, filename, r, lim.withDefaults(), orDiscard(log))
	} else {
		doc, err = p(filename, r, lim.withDefaults())
	}
	if err != nil {
		return Parsed{}, fmt.Errorf("parse %s: %w", baseName(filename), err)
	}
	if strings.TrimSpace(doc.Markdown) == "" {
		return Parsed{}, fmt.Errorf("parse %s: %w: no text found", baseName(filename), ErrEmpty)
	}
	if doc.Title == "" {
		doc.Title = titleFromName(filename)
	}
	return doc, nil
}

// orDiscard is log, or a logger that discards when log is nil.
func orDiscard(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}

// extension is the lower-case extension of a file name, with its dot.
func extension(filename string) string {
	return strings.ToLower(path.Ext(baseName(filename)))
}

// baseName is the last element of a slash or backslash separated path.
func baseName(filename string) string {
	return path.Base(strings.ReplaceAll(filename, `\`, "/"))
}

// titleFromName is the file name without directory and extension.
func titleFromName(filename string) string {
	base := baseName(filename)
	if t := strings.TrimSpace(strings.TrimSuffix(base, path.Ext(base))); t != "" && t != "." && t != "/" {
		return t
	}
	return "untitled"
}
