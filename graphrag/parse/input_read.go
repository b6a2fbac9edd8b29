package parse

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// readAll reads r through io.LimitReader(max+1) into one buffer, the only
// copy of the input Parse keeps.
func readAll(r io.Reader, max int64) ([]byte, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if n > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

// readText reads r like readAll and returns it as a string, checked to be
// text: no NUL bytes, valid UTF-8, not sniffed as a binary format. UTF-16 and
// Latin-1 (Windows-1252) files are decoded first (decodeText); a byte order
// mark is dropped and line endings become "\n".
func readText(r io.Reader, max int64) (string, error) {
	var sb strings.Builder
	n, err := io.Copy(&sb, io.LimitReader(r, max+1))
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	if n > max {
		return "", fmt.Errorf("%w: more than %d bytes", ErrTooLarge, max)
	}
	s := sb.String()
	// Valid UTF-8 without NUL needs no decoding (UTF-16 is neither), and is kept without a second copy:
	// a 20 MB file read into bytes and then converted held the text twice.
	if !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 {
		b, err := decodeText([]byte(s))
		if err != nil {
			return "", err
		}
		s = string(b)
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%w: empty or whitespace only", ErrEmpty)
	}
	if err := checkText(s); err != nil {
		return "", err
	}
	return normalizeNewlines(s), nil
}

// checkText refuses content that is not plain UTF-8 text.
func checkText(s string) error {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("%w: NUL byte at offset %d", ErrBinary, i)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: invalid UTF-8 at offset %d", ErrBinary, invalidUTF8At(s))
	}
	head := s[:min(len(s), 512)]
	if ct := http.DetectContentType([]byte(head)); !strings.HasPrefix(ct, "text/") {
		return fmt.Errorf("%w: content sniffed as %s", ErrBinary, ct)
	}
	return nil
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// normalizeNewlines turns CRLF and lone CR into LF, copying only when needed.
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// cleanTitle collapses whitespace and cuts a title to 200 runes.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= 200 {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:199])) + "…"
}
