package csvtable

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

func readFixture(t *testing.T, name string) string {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	// parse hands Read text with the byte order mark dropped and line endings made "\n".
	return strings.ReplaceAll(strings.TrimPrefix(string(data), "\uFEFF"), "\r\n", "\n")
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		text string
		tab  bool
		want [][]string
	}{
		{"semicolons, quotes, a line break in a cell, an empty row", readFixture(t, "distances.csv"), false, [][]string{
			{"From", "To", "Distance (km)", "Note"},
			{"Munich", "Delhi", "5921", "long haul; 600 EUR"},
			{"Munich", "Frankfurt\nam Main", "300"},
			{"Munich", "Lisbon", "1964", `quoted "hub"`},
			{"Munich", "New York|JFK", "6492"},
		}},
		{"tsv", readFixture(t, "airports.tsv"), true, [][]string{
			{"airport", "city", "country"}, {"MUC", "Munich", "Germany"}, {"DEL", "Delhi, NCT", "India"},
		}},
		{"a stray quote is text", "a,b\nsay \"hi,there\n", false, [][]string{{"a", "b"}, {`say "hi`, "there"}}},
		{"commas by default", "one line without delimiters\n", false, [][]string{{"one line without delimiters"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.text, tt.tab, 1<<20)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Read = %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
}

func TestReadCap(t *testing.T) {
	text := strings.Repeat("a,b,c,d\n", 1000) // 8,000 bytes, 4,000 cells: 12,000 bytes of cells at least
	if _, err := Read(text, false, 10_000); !errors.Is(err, parseerr.ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
	if _, err := Read(text, false, 20_000); err != nil {
		t.Errorf("err = %v under a cap it fits", err)
	}
}

func TestDelimiter(t *testing.T) {
	for text, want := range map[string]rune{
		"a;b;c\n1,5;2;3": ';', "a\tb\n": '\t', "a|b|c": '|', `"x;y;z",b` + "\n": ',', "": ',',
	} {
		if got := Delimiter(text); got != want {
			t.Errorf("Delimiter(%q) = %q, want %q", text, got, want)
		}
	}
}

// FuzzRead: Read never panics, and what it returns fits the cap and holds no
// empty row.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"distances.csv", "airports.tsv"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(data))
		}
	}
	f.Add("a,\"b\nc\"\"\",d\n\n\"")
	f.Fuzz(func(t *testing.T, text string) {
		rows, err := Read(text, false, 1<<16)
		if err != nil {
			if !errors.Is(err, parseerr.ErrTooLarge) && !errors.Is(err, parseerr.ErrMalformed) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		cost := 0
		for _, r := range rows {
			if len(r) == 0 || strings.TrimSpace(r[len(r)-1]) == "" {
				t.Fatalf("row %q ends empty", r)
			}
			for _, c := range r {
				cost += len(c) + cellCost
			}
		}
		if cost > 1<<16 {
			t.Fatalf("cells cost %d, past the cap", cost)
		}
	})
}
