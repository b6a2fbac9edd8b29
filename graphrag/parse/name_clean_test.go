package parse

import (
	"errors"
	"testing"
)

// Issue 21, item 8: a right-to-left override in a name was shown as is; a NUL failed the whole upload.
func TestCleanName(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"right-to-left override", "evil\u202etxt.md", "eviltxt.md", nil},
		{"bidi isolates and marks", "\u2067a\u200fb\u2069.txt", "ab.txt", nil},
		{"zero-width joiners and BOM", "re\u200dport\ufeff.pdf", "report.pdf", nil},
		{"path parts dropped", `C:\Users\me\notes.txt`, "notes.txt", nil},
		{"ordinary names unchanged", "Zürich – Überblick (2024).md", "Zürich – Überblick (2024).md", nil},
		{"right-to-left script kept", "تقرير.txt", "تقرير.txt", nil},
		{"NUL refused", "evil\x00.txt", "", ErrBadName},
		{"escape refused", "a\x1b[31m.txt", "", ErrBadName},
		{"C1 control refused", "a\u0085.txt", "", ErrBadName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CleanName(tt.in)
			if !errors.Is(err, tt.err) || got != tt.want {
				t.Errorf("CleanName(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
	if got := DisplayName("evil\u202etxt\x00.md"); got != "eviltxt.md" {
		t.Errorf("DisplayName: %q", got)
	}
}
