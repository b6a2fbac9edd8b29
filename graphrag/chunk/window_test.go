package chunk

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestWindowedParsingMatchesWholeParsing: parsing a document in small windows gives the same chunks as
// parsing it whole, across headings, tables, lists and fenced code with blank lines at window edges.
func TestWindowedParsingMatchesWholeParsing(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Guide\n\nIntro paragraph.\n\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nSome text about part %d that runs on for a while.\n\n", i, i)
		b.WriteString("| city | distance |\n| --- | --- |\n| Delhi | 5,921 km |\n| Oslo | 1,311 km |\n\n")
		b.WriteString("- first item\n- second item\n\n- loose item after a blank line\n\n")
		b.WriteString("```\ncode line\n\nmore code after a blank line\n```\n\n")
	}
	doc := b.String()
	whole, err := Split(context.Background(), "Guide", doc, Options{MaxTokens: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer func(w int) { window = w }(window)
	for _, size := range []int{64, 200, 1000} {
		window = size
		got, err := Split(context.Background(), "Guide", doc, Options{MaxTokens: 80})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, whole) {
			for i := range min(len(got), len(whole)) {
				if !reflect.DeepEqual(got[i], whole[i]) {
					t.Fatalf("window %d: chunk %d differs:\n%q\nwant\n%q", size, i, got[i].Text, whole[i].Text)
				}
			}
			t.Fatalf("window %d: %d chunks, want %d", size, len(got), len(whole))
		}
	}
}

func TestWindowEndSkipsFences(t *testing.T) {
	src := "para\n\n```\na\n\nb\n```\n\nafter\n"
	end := windowEnd(src, 0, 8) // the first blank line past 8 bytes is inside the fence
	if got := src[end:]; got != "after\n" {
		t.Fatalf("window ends before %q, want before \"after\\n\"", got)
	}
}
