package parse

import (
	"fmt"
	"strings"
)

// mdWriter builds normalised Markdown: blocks separated by one blank line,
// consecutive list items on consecutive lines. It stops growing past max
// bytes and records ErrTooLarge in err.
type mdWriter struct {
	b        strings.Builder
	max      int64
	err      error
	lastList bool
	pages    []Page
}

// Page records that what is written next belongs to page n (from 1), unless
// the last page recorded is n already.
func (w *mdWriter) Page(n int) {
	if len(w.pages) > 0 && w.pages[len(w.pages)-1].Number == n {
		return
	}
	w.pages = append(w.pages, Page{Number: n, Offset: w.b.Len()})
}

func newMDWriter(max int64) *mdWriter { return &mdWriter{max: max} }

func (w *mdWriter) String() string { return w.b.String() }

// Err is ErrTooLarge once the Markdown passed its cap, else nil: the format
// packages that write through the writer (html, docx, pdf) stop at it.
func (w *mdWriter) Err() error { return w.err }

func (w *mdWriter) write(s string, list bool) {
	if w.err != nil {
		return
	}
	if w.b.Len() > 0 {
		if list && w.lastList {
			w.b.WriteString("\n")
		} else {
			w.b.WriteString("\n\n")
		}
	}
	w.b.WriteString(s)
	w.lastList = list
	if int64(w.b.Len()) > w.max {
		w.err = fmt.Errorf("%w: extracted text passes %d bytes", ErrTooLarge, w.max)
	}
}

// Paragraph writes text as one paragraph, escaping line starts that
// Markdown would read as structure.
func (w *mdWriter) Paragraph(text string) {
	var lines []string
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, escapeLineStart(line))
		}
	}
	if len(lines) > 0 {
		w.write(strings.Join(lines, "\n"), false)
	}
}

// Heading writes an ATX heading; level is clamped to 1..6.
func (w *mdWriter) Heading(level int, text string) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return
	}
	level = max(1, min(level, 6))
	w.write(strings.Repeat("#", level)+" "+strings.TrimRight(text, "#"), false)
}

// ListItem writes "- text" indented two spaces per depth (0 is top level).
func (w *mdWriter) ListItem(depth int, text string) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return
	}
	depth = max(0, min(depth, 8))
	w.write(strings.Repeat("  ", depth)+"- "+text, true)
}

// Quote writes text as one block quote line, escaped like a paragraph's.
func (w *mdWriter) Quote(text string) { w.write("> "+escapeLineStart(text), false) }

// Code writes a fenced code block longer than any backtick run inside.
func (w *mdWriter) Code(text string) {
	text = strings.Trim(text, "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	w.write(fence+"\n"+text+"\n"+fence, false)
}

// Table writes rows as a pipe table, the first row as its header. Rows are
// padded to the widest row; empty rows are dropped.
func (w *mdWriter) Table(rows [][]string) {
	var kept [][]string
	width := 0
	for _, row := range rows {
		empty := true
		for i := range row {
			row[i] = tableCell(row[i])
			empty = empty && row[i] == ""
		}
		if !empty {
			kept = append(kept, row)
			width = max(width, len(row))
		}
	}
	if len(kept) == 0 {
		return
	}
	if width == 1 && len(kept) == 1 {
		w.Paragraph(kept[0][0])
		return
	}
	var b strings.Builder
	for i, row := range kept {
		if i == 1 {
			b.WriteString("\n|" + strings.Repeat(" --- |", width))
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("|")
		for c := range width {
			cell := ""
			if c < len(row) {
				cell = row[c]
			}
			b.WriteString(" " + cell + " |")
		}
	}
	if len(kept) == 1 {
		b.WriteString("\n|" + strings.Repeat(" --- |", width))
	}
	w.write(b.String(), false)
}

// tableCell makes text safe inside one pipe-table cell.
func tableCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.ReplaceAll(s, `\|`, `\ |`)
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.HasSuffix(s, `\`) && !strings.HasSuffix(s, `\|`) {
		s += " "
	}
	return strings.TrimSpace(s)
}

// escapeLineStart backslash-escapes a line that Markdown would otherwise
// read as a heading, list item, quote, table row, fence or rule.
func escapeLineStart(line string) string {
	if line == "" {
		return line
	}
	switch line[0] {
	case '#', '>', '|', '=', '`', '~':
		return `\` + line
	case '-', '+', '*', '_':
		if len(line) == 1 || line[1] == ' ' || line[1] == line[0] {
			return `\` + line
		}
	}
	i := 0
	for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i < len(line) && (line[i] == '.' || line[i] == ')') && (i+1 == len(line) || line[i+1] == ' ') {
		return line[:i] + `\` + line[i:]
	}
	return line
}
