// Package zipguard opens the zip archives of Office documents (DOCX, PPTX,
// XLSX) with the caps that keep a zip bomb from costing more than a small
// file: a cap on entries, and one inflation budget shared by every entry read,
// counted on the bytes actually inflated since declared sizes can lie.
package zipguard

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// MaxEntries caps the entries of an archive; real documents have tens, a large
// deck a few thousand.
const MaxEntries = 5000

// Archive is an opened archive whose entries draw on one inflation budget.
type Archive struct {
	zr       *zip.Reader
	what     string // "docx", "pptx": for messages
	inflated int64
	max      int64
}

// Open checks that data is a zip archive of at most MaxEntries entries; what
// names the format in errors.
func Open(data []byte, maxInflated int64, what string) (*Archive, error) {
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return nil, fmt.Errorf("%w: %s is not a zip archive", parseerr.ErrMalformed, what)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%w: %s zip: %v", parseerr.ErrMalformed, what, err)
	}
	if len(zr.File) > MaxEntries {
		return nil, fmt.Errorf("%w: %s zip has %d entries, cap %d", parseerr.ErrTooLarge, what, len(zr.File), MaxEntries)
	}
	return &Archive{zr: zr, what: what, max: maxInflated}, nil
}

// Files are the archive's entries, in archive order.
func (a *Archive) Files() []*zip.File { return a.zr.File }

// Find is the entry with this name (case-insensitive, a leading slash
// ignored), nil when there is none.
func (a *Archive) Find(name string) *zip.File {
	for _, f := range a.zr.File {
		if strings.EqualFold(strings.TrimPrefix(f.Name, "/"), name) {
			return f
		}
	}
	return nil
}

// Open opens an entry whose reads count against the archive's budget: past it
// they fail with parseerr.ErrTooLarge. An entry that declares more than the
// budget is refused at once.
func (a *Archive) Open(f *zip.File) (io.ReadCloser, error) {
	if f.UncompressedSize64 > uint64(a.max) {
		return nil, fmt.Errorf("%w: %s entry %s declares %d bytes inflated, cap %d", parseerr.ErrTooLarge, a.what, f.Name, f.UncompressedSize64, a.max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s entry %s: %v", parseerr.ErrMalformed, a.what, f.Name, err)
	}
	return &budgetReader{rc: rc, a: a}, nil
}

// budgetReader counts what it inflates into its archive's budget.
type budgetReader struct {
	rc io.ReadCloser
	a  *Archive
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.a.inflated > b.a.max {
		return 0, b.tooLarge()
	}
	n, err := b.rc.Read(p)
	b.a.inflated += int64(n)
	if b.a.inflated > b.a.max {
		return n, b.tooLarge()
	}
	return n, err
}

func (b *budgetReader) Close() error { return b.rc.Close() }

func (b *budgetReader) tooLarge() error {
	return fmt.Errorf("%w: %s inflated content: more than %d bytes", parseerr.ErrTooLarge, b.a.what, b.a.max)
}

// XMLDecoder reads one XML part of an archive leniently (Office writers are
// not all strict), refusing any encoding but UTF-8.
func XMLDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") || strings.EqualFold(label, "utf8") {
			return input, nil
		}
		return nil, fmt.Errorf("unsupported XML encoding %q", label)
	}
	return d
}

// ReadError classifies an error met while decoding an entry: the budget's
// ErrTooLarge as it is, anything else as ErrMalformed.
func (a *Archive) ReadError(entry string, err error) error {
	if errors.Is(err, parseerr.ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w: %s %s: %v", parseerr.ErrMalformed, a.what, entry, err)
}
