// Package parseerr holds the sentinel errors of the document readers, so that
// parse and the format packages under it (xlsx, pptx, pdf, docx, zipguard...)
// wrap the same values. Callers test parse's names for them (parse.ErrTooLarge
// is ErrTooLarge) with errors.Is.
package parseerr

import (
	"errors"
	"fmt"
)

var (
	// ErrUnsupported: the file type is not one Parse reads.
	ErrUnsupported = errors.New("unsupported file type")
	// ErrTooLarge: the input, its inflated content or its page count passes a Limits cap.
	ErrTooLarge = errors.New("file too large")
	// ErrEmpty: the file holds no text (empty, whitespace only, or no extractable text).
	ErrEmpty = errors.New("file has no text")
	// ErrBinary: a text file that looks binary (NUL bytes, invalid UTF-8, binary magic bytes).
	ErrBinary = errors.New("file looks binary (NUL bytes / invalid UTF-8)")
	// ErrMalformed: the content does not match its format (truncated PDF, DOCX that is not a zip...).
	ErrMalformed = errors.New("malformed file")
)

// ErrInternal marks a recovered panic raised by Hopwise's own parsing code: a
// bug, as opposed to a library failing on malformed input. It comes with
// ErrMalformed, which is what callers see; the fuzz targets fail on it.
var ErrInternal = errors.New("internal error")

// Recovered turns a value recovered from a panic while reading what into an
// ErrMalformed error, also marked ErrInternal when own is true.
func Recovered(what string, v any, own bool) error {
	if own {
		return fmt.Errorf("%w: %w: %s: %v", ErrMalformed, ErrInternal, what, v)
	}
	return fmt.Errorf("%w: %s: %v", ErrMalformed, what, v)
}
