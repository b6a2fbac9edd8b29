package parse

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// decodeText turns the bytes of a text file into UTF-8. Files saved by older editors are often UTF-16
// (Windows Notepad's "Unicode", with or without a byte order mark) or Latin-1 / Windows-1252: they are
// decoded rather than refused as binary. Anything else that is not valid UTF-8 is left as it is, for
// checkText to refuse.
func decodeText(b []byte) ([]byte, error) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:], nil
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	case utf16Without(b, 1):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case utf16Without(b, 0):
		enc = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	case utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 || controlBytes(b)*100 > len(b):
		return b, nil // UTF-8 already, or binary: checkText decides
	default:
		enc = charmap.Windows1252 // a superset of Latin-1's printable characters
	}
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return nil, fmt.Errorf("%w: not valid %s text: %v", ErrBinary, enc, err)
	}
	return out, nil
}

// utf16Without reports text in UTF-16 without a byte order mark: the high byte of most characters
// (at offset zero of each pair for big-endian, one for little-endian) is NUL, as in Latin-script text,
// and the other byte almost never is.
func utf16Without(b []byte, zero int) bool {
	pairs := len(b) / 2
	if pairs < 2 || len(b)%2 != 0 {
		return false
	}
	zeros, others := 0, 0
	for i := 0; i+1 < len(b); i += 2 {
		if b[i+zero] == 0 {
			zeros++
		}
		if b[i+1-zero] == 0 {
			others++
		}
	}
	return zeros*10 >= pairs*7 && others*50 <= pairs
}

// controlBytes counts bytes below 0x20 that text does not hold (all but tab, line feed, form feed and
// carriage return).
func controlBytes(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r' {
			n++
		}
	}
	return n
}
