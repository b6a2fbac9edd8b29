package parse

import (
	"io"
	"strings"
	"unicode/utf8"
)

// parseText reads a plain UTF-8 text file; its paragraphs (blank-line
// separated) are already Markdown paragraphs.
func parseText(name string, r io.Reader, lim Limits) (Parsed, error) {
	s, err := readText(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	return Parsed{Title: textTitle(s, name), Format: "text", Markdown: s}, nil
}

// textTitle is the first non-empty line when it is short enough to be a
// title, else the file name.
func textTitle(s, name string) string {
	for len(s) > 0 {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= 100 {
			return cleanTitle(strings.TrimLeft(line, "# "))
		}
		break
	}
	return titleFromName(name)
}
