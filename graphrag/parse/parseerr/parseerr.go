// Package parseerr holds the sentinel errors of the document readers, so that
// parse and the format packages under it (xlsx, pptx, csvtable, zipguard)
// wrap the same values. Callers test parse's names for them (parse.ErrTooLarge
// is ErrTooLarge) with errors.Is.
package parseerr

import "errors"

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
