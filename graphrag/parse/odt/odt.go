// Package odt reads the text of an OpenDocument text file (.odt, as
// LibreOffice writes it) with archive/zip and encoding/xml: content.xml's
// headings (text:h and its outline level), paragraphs, list items and tables
// in document order, and the title from meta.xml.
package odt

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
	"github.com/hopwise/hopwise/graphrag/parse/zipguard"
)

// Block is one heading (Level 1..6), paragraph (Level 0), list item (Item,
// at Depth from 0) or table (Rows).
type Block struct {
	Level int
	Item  bool
	Depth int
	Text  string
	Rows  [][]string
}

// Document is what Read found.
type Document struct {
	Title  string
	Blocks []Block
}

// Read reads a document held in data. Every byte inflated from the archive
// counts against maxInflated (parseerr.ErrTooLarge past it), with the entry
// cap of zipguard.
func Read(data []byte, maxInflated int64) (Document, error) {
	a, err := zipguard.Open(data, maxInflated, "odt")
	if err != nil {
		return Document{}, err
	}
	var doc Document
	if doc.Title, err = title(a); err != nil {
		return Document{}, err
	}
	f := a.Find("content.xml")
	if f == nil {
		return Document{}, fmt.Errorf("%w: odt has no content.xml", parseerr.ErrMalformed)
	}
	rc, err := a.Open(f)
	if err != nil {
		return Document{}, err
	}
	defer rc.Close()
	w := &walk{}
	if err := w.run(zipguard.XMLDecoder(rc)); err != nil {
		return Document{}, a.ReadError("content.xml", err)
	}
	doc.Blocks = w.blocks
	return doc, nil
}

// walk follows content.xml. Text is gathered per text:p or text:h; inside a
// table it goes to the current cell, and only the outermost table is laid out.
type walk struct {
	blocks []Block
	text   strings.Builder
	open   int // open text:p / text:h
	level  int // outline level of the open text:h
	lists  int
	items  int // open list items: a paragraph in one is an item
	tables int
	rows   [][]string
	skip   int // open elements whose text is not the document's (notes, annotations, frames' titles)
}

// skippedText are elements whose text is not body text.
var skippedText = map[string]bool{"note": true, "annotation": true, "tracked-changes": true, "sequence-decls": true, "desc": true, "title": true}

func (w *walk) run(d *xml.Decoder) error {
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			w.start(t)
		case xml.EndElement:
			w.end(t.Name.Local)
		case xml.CharData:
			if w.open > 0 && w.skip == 0 {
				w.text.Write(t)
			}
		}
	}
}

func (w *walk) start(t xml.StartElement) {
	if skippedText[t.Name.Local] {
		w.skip++
		return
	}
	switch t.Name.Local {
	case "p", "h":
		if w.open == 0 {
			w.text.Reset()
			w.level = 0
			if t.Name.Local == "h" {
				w.level = 1
				if n, err := strconv.Atoi(attr(t, "outline-level")); err == nil {
					w.level = max(1, min(n, 6))
				}
			}
		}
		w.open++
	case "s": // c spaces
		n, err := strconv.Atoi(attr(t, "c"))
		if err != nil || n < 1 {
			n = 1
		}
		w.inline(strings.Repeat(" ", min(n, 100)))
	case "tab":
		w.inline("\t")
	case "line-break":
		w.inline("\n")
	case "list":
		w.lists++
	case "list-item", "list-header":
		w.items++
	case "table":
		if w.tables++; w.tables == 1 {
			w.rows = nil
		}
	case "table-row":
		if w.tables == 1 {
			w.rows = append(w.rows, nil)
		}
	case "table-cell", "covered-table-cell":
		if w.tables == 1 && len(w.rows) > 0 {
			w.rows[len(w.rows)-1] = append(w.rows[len(w.rows)-1], "")
		}
	}
}

// inline adds white space the markup stands for to the open paragraph.
func (w *walk) inline(s string) {
	if w.open > 0 && w.skip == 0 {
		w.text.WriteString(s)
	}
}

func (w *walk) end(name string) {
	if skippedText[name] {
		w.skip = max(0, w.skip-1)
		return
	}
	switch name {
	case "p", "h":
		if w.open = max(0, w.open-1); w.open == 0 {
			w.endParagraph()
		}
	case "list":
		w.lists = max(0, w.lists-1)
	case "list-item", "list-header":
		w.items = max(0, w.items-1)
	case "table":
		if w.tables = max(0, w.tables-1); w.tables == 0 && len(w.rows) > 0 {
			w.blocks = append(w.blocks, Block{Rows: w.rows})
			w.rows = nil
		}
	}
}

// endParagraph files the text of a closed paragraph or heading.
func (w *walk) endParagraph() {
	text := strings.TrimSpace(w.text.String())
	if text == "" {
		return
	}
	if w.tables > 0 {
		if n := len(w.rows); n > 0 && len(w.rows[n-1]) > 0 {
			cell := &w.rows[n-1][len(w.rows[n-1])-1]
			*cell = strings.TrimSpace(*cell + " " + text)
		}
		return
	}
	b := Block{Level: w.level, Text: text}
	if w.items > 0 && w.level == 0 {
		b.Item, b.Depth = true, max(0, w.lists-1)
	}
	w.blocks = append(w.blocks, b)
}

// title reads dc:title from meta.xml, "" when absent.
func title(a *zipguard.Archive) (string, error) {
	f := a.Find("meta.xml")
	if f == nil {
		return "", nil
	}
	rc, err := a.Open(f)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	var m struct {
		Title string `xml:"meta>title"`
	}
	if err := zipguard.XMLDecoder(rc).Decode(&m); err != nil {
		return "", a.ReadError("meta.xml", err)
	}
	return strings.Join(strings.Fields(m.Title), " "), nil
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
