package parse

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrBadName is a file name holding a NUL or another control character: no real file is named so, and
// such a name breaks what stores and shows it.
var ErrBadName = errors.New("file name holds a control character")

// CleanName is a file name as Hopwise keeps and shows it: the base name without the characters that
// reorder text (a right-to-left override makes "evil\u202etxt.md" read "evildm.txt") or are invisible
// format marks. A name with a NUL or another control character is refused with ErrBadName.
func CleanName(name string) (string, error) {
	for i, r := range name {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("%w: %U at byte %d", ErrBadName, r, i)
		}
	}
	return DisplayName(name), nil
}

// DisplayName is name without control, bidirectional and other format characters, for names stored
// before CleanName existed.
func DisplayName(name string) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, baseName(name))
	return strings.TrimSpace(clean)
}
