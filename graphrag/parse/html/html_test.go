package html

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// blocks is a Writer that keeps each block as one string and, once it holds limit of them, takes no more.
type blocks struct {
	got   []string
	limit int
}

func (b *blocks) keep(s string) {
	if b.Err() == nil {
		b.got = append(b.got, s)
	}
}

func (b *blocks) Heading(level int, text string)  { b.keep(fmt.Sprintf("h%d:%s", level, text)) }
func (b *blocks) Paragraph(text string)           { b.keep("p:" + text) }
func (b *blocks) ListItem(depth int, text string) { b.keep(fmt.Sprintf("li%d:%s", depth, text)) }
func (b *blocks) Quote(text string)               { b.keep("q:" + text) }
func (b *blocks) Code(text string)                { b.keep("code:" + text) }
func (b *blocks) Table(rows [][]string)           { b.keep(fmt.Sprintf("table:%q", rows)) }
func (b *blocks) Err() error {
	if b.limit > 0 && len(b.got) >= b.limit {
		return fmt.Errorf("%w: full", parseerr.ErrTooLarge)
	}
	return nil
}

// TestRead: a page's visible blocks reach the Writer in order, white space collapsed, with script, style
// and the head left out, only the outermost table laid out, and the title and first h1 given back.
func TestRead(t *testing.T) {
	page := `<html><head><title> The
 title </title><style>p{}</style></head><body><h1>First  heading</h1><script>x()</script>
<p>one <b>two</b></p><ul><li>a<ol><li>b</li></ol></li></ul><blockquote>said</blockquote><pre>  code</pre>
<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td><table><tr><td>in</td></tr></table></td></tr></table>
<h1>Second</h1></body></html>`
	var w blocks
	p, err := Read(strings.NewReader(page), 1<<20, &w)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"h1:First heading", "p:one two", "li0:a", "li1:b", "q:said", "code:  code",
		`table:[["k" "v"] ["1" "in"]]`, "h1:Second"}
	if fmt.Sprint(w.got) != fmt.Sprint(want) {
		t.Errorf("blocks\n%q\nwant\n%q", w.got, want)
	}
	if p.Title != "The title" || p.H1 != "First heading" {
		t.Errorf("page = %+v, want the title and the first h1", p)
	}
}

// TestReadErrors: input past the byte cap, binary or blank input, and a Writer that takes no more each
// end Read with their sentinel.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, page string
		max        int64
		w          *blocks
		want       error
	}{
		{"past the cap", "<p>" + strings.Repeat("x", 5000) + "</p>", 4096, &blocks{}, parseerr.ErrTooLarge},
		{"NUL byte", "<p>a\x00b</p>", 1 << 20, &blocks{}, parseerr.ErrBinary},
		{"blank", " \n\t ", 1 << 20, &blocks{}, parseerr.ErrEmpty},
		{"full writer", "<p>a</p><p>b</p><p>c</p>", 1 << 20, &blocks{limit: 2}, parseerr.ErrTooLarge},
	} {
		if _, err := Read(strings.NewReader(tc.page), tc.max, tc.w); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
}
