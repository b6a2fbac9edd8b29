package chunk

import (
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

type blockKind int

const (
	kindText blockKind = iota // blockquote, HTML, rule, text goldmark did not place in a block
	kindParagraph
	kindTable
	kindList
	kindCode
	kindHeading
)

// block is one top-level Markdown block: whole source lines [start, end),
// trailing blank lines excluded. Consecutive blocks tile the source.
type block struct {
	kind       blockKind
	start, end int
	items      []int  // list: start offset of each item
	level      int    // heading level
	title      string // heading text without markup
}

// section is the run of blocks under one heading (or before the first).
type section struct {
	path    []string
	blocks  []block
	heading *block // set when the heading must stand as the body: nothing under it
	end     int    // source offset where the section ends
}

var markdown = goldmark.New(goldmark.WithExtensions(extension.Table))

// window is how much Markdown goldmark parses at once: its syntax tree takes about fifteen times the
// text, so a large document is parsed piece by piece and memory stays bounded by the window, not the file.
var window = 256 << 10

// scanBlocks parses src and cuts it into top-level blocks at the line where
// each block starts, so every byte of src belongs to exactly one block.
func scanBlocks(src string) []block {
	var blocks []block
	for start := 0; start < len(src); {
		end := windowEnd(src, start, window)
		blocks = appendBlocks(blocks, src, start, end)
		start = end
	}
	if len(blocks) == 0 && strings.TrimSpace(src) != "" {
		blocks = append(blocks, block{kind: kindText})
	}
	for i := range blocks {
		end := len(src)
		if i+1 < len(blocks) {
			end = blocks[i+1].start
		}
		blocks[i].end = blocks[i].start + len(strings.TrimRight(src[blocks[i].start:end], " \t\r\n"))
	}
	return blocks
}

// windowEnd is where the window starting at from should end: at the first blank line past from+size that is
// not inside a fenced code block, or at the end of src.
func windowEnd(src string, from, size int) int {
	if len(src)-from <= size {
		return len(src)
	}
	fence := ""
	for i := from; i < len(src); {
		j := strings.IndexByte(src[i:], '\n')
		if j < 0 {
			return len(src)
		}
		line := src[i : i+j]
		next := i + j + 1
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"):
			fence = "```"
		case strings.HasPrefix(trimmed, "~~~"):
			fence = "~~~"
		case i-from >= size && strings.TrimSpace(line) == "":
			return next
		}
		i = next
	}
	return len(src)
}

// appendBlocks parses src[from:to] and appends its top-level blocks, offsets into the whole src.
func appendBlocks(blocks []block, src string, from, to int) []block {
	part := src[from:to]
	source := []byte(part)
	doc := markdown.Parser().Parse(text.NewReader(source))
	last := -1
	if len(blocks) > 0 {
		last = blocks[len(blocks)-1].start
	}
	first := len(blocks)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		pos := n.Pos()
		if pos < 0 || pos > len(part) {
			continue
		}
		start := lineStart(src, from+pos)
		if len(blocks) == first && start > from && strings.TrimSpace(src[from:start]) != "" {
			blocks = append(blocks, block{kind: kindText, start: from})
		}
		if len(blocks) > 0 && start <= last {
			// No new line: the node stays in the previous block. A table
			// goldmark carved out of a paragraph makes that block a table.
			if n.Kind() == east.KindTable {
				blocks[len(blocks)-1].kind = kindTable
			}
			continue
		}
		blocks = append(blocks, describe(n, src, source, from, start))
		last = start
	}
	if len(blocks) == first && strings.TrimSpace(part) != "" {
		blocks = append(blocks, block{kind: kindText, start: from})
	}
	return blocks
}

// describe classifies node n of a window that starts at offset base of src.
func describe(n ast.Node, src string, source []byte, base, start int) block {
	b := block{kind: kindText, start: start}
	switch n.Kind() {
	case ast.KindParagraph:
		b.kind = kindParagraph
	case east.KindTable:
		b.kind = kindTable
	case ast.KindFencedCodeBlock, ast.KindCodeBlock:
		b.kind = kindCode
	case ast.KindHeading:
		b.kind = kindHeading
		b.level = n.(*ast.Heading).Level
		b.title = InlineText(n, source)
	case ast.KindList:
		b.kind = kindList
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			if p := base + item.Pos(); item.Pos() >= 0 && p >= start && p <= len(src) {
				if s := lineStart(src, p); len(b.items) == 0 || s > b.items[len(b.items)-1] {
					b.items = append(b.items, s)
				}
			}
		}
	}
	return b
}

func lineStart(src string, i int) int {
	return strings.LastIndexByte(src[:i], '\n') + 1
}

// InlineText is the plain text of a node's inline content (a heading's title, a table cell's words),
// whitespace collapsed.
func InlineText(n ast.Node, source []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(source))
				if t.SoftLineBreak() || t.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(t.Value)
			case *ast.RawHTML:
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// scanSections groups the blocks of src by heading. A level-1 heading equal
// to the document title is left out of section paths.
func scanSections(src, title string) []section {
	type open struct {
		level int
		title string
	}
	var stack []open
	cur := section{}
	var out []section
	closeSection := func(end, nextLevel int, h *block) {
		cur.end = end
		if len(cur.blocks) == 0 && h != nil && (nextLevel == 0 || nextLevel <= h.level) {
			cur.heading = h
		}
		if len(cur.blocks) > 0 || cur.heading != nil {
			out = append(out, cur)
		}
	}
	var heading *block
	blocks := scanBlocks(src)
	for i := range blocks {
		b := blocks[i]
		if b.kind != kindHeading {
			cur.blocks = append(cur.blocks, b)
			continue
		}
		closeSection(b.start, b.level, heading)
		for len(stack) > 0 && stack[len(stack)-1].level >= b.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, open{b.level, b.title})
		path := []string{}
		for _, o := range stack {
			if o.title == "" || o.level == 1 && sameTitle(o.title, title) {
				continue
			}
			path = append(path, o.title)
		}
		heading = &blocks[i]
		cur = section{path: path}
	}
	closeSection(len(src), 0, heading)
	return out
}

// sameTitle compares titles by their letters and digits only.
func sameTitle(a, b string) bool {
	norm := func(s string) string {
		return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), " ")
	}
	return norm(a) != "" && norm(a) == norm(b)
}
