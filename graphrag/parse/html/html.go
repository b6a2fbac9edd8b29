// Package html reads the visible text of an HTML page with the tokenizer of
// golang.org/x/net/html, block by block (headings, paragraphs, list items,
// block quotes, preformatted text and the outermost table of a nest), and
// writes each block to a Writer: parse's Markdown writer. EPUB chapters are
// read with Walk too.
package html

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// Writer receives the blocks of a page in order. Err is non-nil once the
// writer will take no more (its output passed its cap): the walk stops with it.
type Writer interface {
	Heading(level int, text string)
	Paragraph(text string)
	ListItem(depth int, text string)
	Quote(text string)
	Code(text string)
	Table(rows [][]string)
	Err() error
}

// Page is what a walk found besides the blocks: the text of the title element
// and of the first h1, each with its white space collapsed ("" when absent).
type Page struct {
	Title string
	H1    string
}

// Read streams an HTML page from r (at most maxBytes bytes, else
// parseerr.ErrTooLarge) through the tokenizer, writing its visible text to w.
// The first 1,024 bytes are checked to be text (parseerr.ErrEmpty,
// parseerr.ErrBinary) and give the character set, which is decoded to UTF-8.
func Read(r io.Reader, maxBytes int64, w Writer) (Page, error) {
	var n int64
	br := bufio.NewReaderSize(&countingReader{r: r, n: &n, max: maxBytes, what: "input"}, 1024)
	head, err := br.Peek(1024)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Page{}, fmt.Errorf("read: %w", err)
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\uFEFF")))) == 0 {
		return Page{}, fmt.Errorf("%w: empty or whitespace only", parseerr.ErrEmpty)
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return Page{}, fmt.Errorf("%w: NUL byte at offset %d", parseerr.ErrBinary, i)
	}
	if ct := http.DetectContentType(head); !strings.HasPrefix(ct, "text/") {
		return Page{}, fmt.Errorf("%w: content sniffed as %s", parseerr.ErrBinary, ct)
	}
	var src io.Reader = br
	if enc, encName, _ := charset.DetermineEncoding(head, ""); encName != "utf-8" {
		src = transform.NewReader(br, enc.NewDecoder())
	}
	return Walk(src, w)
}

// Walk writes the visible text of the HTML read from r to w, as it is (UTF-8
// expected, invalid bytes replaced): Read after its checks, or an EPUB chapter.
func Walk(r io.Reader, w Writer) (Page, error) {
	hw := &htmlWalk{w: w}
	if err := hw.run(html.NewTokenizer(r)); err != nil {
		return Page{}, err
	}
	return Page{Title: hw.title, H1: hw.h1}, nil
}

// htmlWalk is the state of the block-aware walk over HTML tokens.
type htmlWalk struct {
	w       Writer
	para    inlineText // text of the block being read
	cell    inlineText // text of the table cell being read
	pre     strings.Builder
	title   string
	h1      string
	inTitle bool
	inHead  bool
	skip    int // open elements whose content is not text (script, style...)
	heading int // level of the open heading, 0 outside headings
	lists   int // open ul/ol
	preOpen int
	quotes  int
	tables  int // open tables; only the outermost one is laid out
	inCell  bool
	row     []string
	rows    [][]string
}

func (h *htmlWalk) run(z *html.Tokenizer) error {
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return fmt.Errorf("html: %w", err)
			}
			h.flush()
			if h.tables > 0 {
				h.endTable()
			}
			return h.w.Err()
		case html.TextToken:
			h.text(string(z.Text()))
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, _ := z.TagName()
			h.start(atom.Lookup(tag), tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			tag, _ := z.TagName()
			h.end(atom.Lookup(tag))
		}
		if h.w.Err() != nil {
			return h.w.Err()
		}
	}
}

var skippedTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Iframe: true, atom.Canvas: true, atom.Select: true,
	atom.Object: true, atom.Audio: true, atom.Video: true,
}

var blockTags = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Header: true,
	atom.Footer: true, atom.Main: true, atom.Aside: true, atom.Nav: true, atom.Address: true,
	atom.Figure: true, atom.Figcaption: true, atom.Form: true, atom.Fieldset: true,
	atom.Details: true, atom.Summary: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Hr: true, atom.Caption: true, atom.Body: true, atom.Html: true, atom.Center: true,
	atom.Legend: true, atom.Hgroup: true, atom.Option: true,
}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

func (h *htmlWalk) start(a atom.Atom, selfClosing bool) {
	if skippedTags[a] {
		if !selfClosing {
			h.skip++
		}
		return
	}
	if h.skip > 0 {
		return
	}
	switch {
	case a == atom.Title:
		h.inTitle = !selfClosing
	case a == atom.Head:
		h.inHead = !selfClosing
	case a == atom.Body:
		h.inHead = false
		h.blockBreak()
	case headingLevel(a) > 0:
		h.blockBreak()
		h.heading = headingLevel(a)
	case a == atom.Ul || a == atom.Ol || a == atom.Menu:
		h.blockBreak()
		h.lists++
	case a == atom.Li || a == atom.Br || a == atom.Tr && h.tables > 1 || blockTags[a]:
		h.blockBreak()
	case a == atom.Pre:
		h.blockBreak()
		h.preOpen++
	case a == atom.Blockquote:
		h.blockBreak()
		h.quotes++
	case a == atom.Table:
		h.blockBreak()
		h.tables++
	case a == atom.Tr && h.tables == 1:
		h.endRow()
	case (a == atom.Td || a == atom.Th) && h.tables == 1:
		h.endCell()
		h.inCell = true
	case a == atom.Td || a == atom.Th:
		h.blockBreak()
	}
}

func (h *htmlWalk) end(a atom.Atom) {
	if skippedTags[a] {
		h.skip = max(0, h.skip-1)
		return
	}
	if h.skip > 0 {
		return
	}
	switch {
	case a == atom.Title:
		h.inTitle = false
	case a == atom.Head:
		h.inHead = false
	case headingLevel(a) > 0:
		h.blockBreak()
		h.heading = 0
	case a == atom.Ul || a == atom.Ol || a == atom.Menu:
		h.blockBreak()
		h.lists = max(0, h.lists-1)
	case a == atom.Pre:
		h.blockBreak()
		h.preOpen = max(0, h.preOpen-1)
	case a == atom.Blockquote:
		h.blockBreak()
		h.quotes = max(0, h.quotes-1)
	case a == atom.Table && h.tables == 1:
		h.endTable()
	case a == atom.Table:
		h.blockBreak()
		h.tables = max(0, h.tables-1)
	case a == atom.Tr && h.tables == 1:
		h.endRow()
	case (a == atom.Td || a == atom.Th) && h.tables == 1:
		h.endCell()
	case a == atom.Li || blockTags[a] || a == atom.Td || a == atom.Th || a == atom.Tr:
		h.blockBreak()
	}
}

func (h *htmlWalk) text(s string) {
	if h.skip > 0 {
		return
	}
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "\uFFFD")
	switch {
	case h.inTitle:
		if h.title == "" {
			h.title = strings.Join(strings.Fields(s), " ")
		}
	case h.inHead:
	case h.inCell:
		h.cell.add(s)
	case h.preOpen > 0:
		h.pre.WriteString(s)
	default:
		h.para.add(s)
	}
}

// blockBreak ends the current block: inside a table cell it is a space,
// elsewhere the pending text is written out.
func (h *htmlWalk) blockBreak() {
	if h.inCell {
		h.cell.space = true
		return
	}
	h.flush()
}

func (h *htmlWalk) flush() {
	if code := h.pre.String(); code != "" {
		h.pre.Reset()
		h.w.Code(code)
	}
	s := h.para.take()
	if s == "" {
		return
	}
	switch {
	case h.heading > 0:
		h.w.Heading(h.heading, s)
		if h.heading == 1 && h.h1 == "" {
			h.h1 = s
		}
	case h.lists > 0:
		h.w.ListItem(h.lists-1, s)
	case h.quotes > 0:
		h.w.Quote(s)
	default:
		h.w.Paragraph(s)
	}
}

func (h *htmlWalk) endCell() {
	if h.inCell {
		h.row = append(h.row, h.cell.take())
		h.inCell = false
	}
}

func (h *htmlWalk) endRow() {
	h.endCell()
	if len(h.row) > 0 {
		h.rows = append(h.rows, h.row)
		h.row = nil
	}
}

func (h *htmlWalk) endTable() {
	h.endRow()
	h.flush()
	h.w.Table(h.rows)
	h.rows = nil
	h.tables = 0
}

// inlineText collects inline text with runs of white space collapsed to one space.
type inlineText struct {
	b     strings.Builder
	space bool
}

func (t *inlineText) add(s string) {
	for _, r := range s {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\u00a0' || r == '\u200b' {
			t.space = true
			continue
		}
		if t.space && t.b.Len() > 0 {
			t.b.WriteByte(' ')
		}
		t.space = false
		t.b.WriteRune(r)
	}
}

func (t *inlineText) take() string {
	s := t.b.String()
	t.b.Reset()
	t.space = false
	return s
}

// countingReader stops with parseerr.ErrTooLarge once more than max bytes
// have been read through it; n is shared so several readers can draw on one
// budget.
type countingReader struct {
	r    io.Reader
	n    *int64
	max  int64
	what string // what is counted, for the message
}

func (c *countingReader) Read(p []byte) (int, error) {
	if *c.n > c.max {
		return 0, c.tooLarge()
	}
	k, err := c.r.Read(p)
	*c.n += int64(k)
	if *c.n > c.max {
		return k, c.tooLarge()
	}
	return k, err
}

func (c *countingReader) tooLarge() error {
	return fmt.Errorf("%w: %s: more than %d bytes", parseerr.ErrTooLarge, c.what, c.max)
}
