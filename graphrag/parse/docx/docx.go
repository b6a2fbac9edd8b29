// Package docx reads the text of a Word document (.docx) with archive/zip
// and encoding/xml: word/document.xml's headings (by style, from
// word/styles.xml, or by outline level), paragraphs, list items and the
// outermost table of a nest, in document order, written to a Writer (parse's
// Markdown writer), and the title from docProps/core.xml. Every byte inflated
// from the archive counts against a cap, whatever sizes the archive declares.
package docx

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
	"github.com/hopwise/hopwise/graphrag/parse/zipguard"
)

// Writer receives the blocks of a document in order. Err is non-nil once the
// writer will take no more (its output passed its cap): the walk stops with it.
type Writer interface {
	Heading(level int, text string)
	Paragraph(text string)
	ListItem(depth int, text string)
	Table(rows [][]string)
	Err() error
}

// Read reads a document held in data, writing its blocks to w. It returns the
// title: docProps/core.xml's dc:title, else the text of the first heading
// ("" when neither). Everything inflated from the archive counts against
// maxInflated (parseerr.ErrTooLarge past it), with the entry cap of zipguard.
func Read(data []byte, maxInflated int64, w Writer) (title string, err error) {
	dz, err := zipguard.Open(data, maxInflated, "docx")
	if err != nil {
		return "", err
	}
	styles, err := docxStyles(dz)
	if err != nil {
		return "", err
	}
	title, err = docxCoreTitle(dz)
	if err != nil {
		return "", err
	}
	f := dz.Find("word/document.xml")
	if f == nil {
		return "", fmt.Errorf("%w: docx has no word/document.xml", parseerr.ErrMalformed)
	}
	rc, err := dz.Open(f)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	dw := &docxWalk{w: w, styles: styles}
	if err := dw.run(zipguard.XMLDecoder(rc)); err != nil {
		return "", dz.ReadError("word/document.xml", err)
	}
	if title == "" {
		title = dw.firstHeading
	}
	return title, nil
}

// styles maps paragraph style ids to heading levels (1..6) and marks list
// styles with -1, from word/styles.xml when present.
func docxStyles(d *zipguard.Archive) (map[string]int, error) {
	f := d.Find("word/styles.xml")
	if f == nil {
		return nil, nil
	}
	rc, err := d.Open(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	styles := map[string]int{}
	dec := zipguard.XMLDecoder(rc)
	id := ""
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return styles, nil
		}
		if err != nil {
			return nil, d.ReadError("word/styles.xml", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "style":
			id = attr(se, "styleId")
		case "name":
			if lvl := styleNameLevel(attr(se, "val")); id != "" && lvl != 0 {
				styles[id] = lvl
			}
		case "outlineLvl":
			if lvl, ok := smallInt(attr(se, "val")); id != "" && ok && lvl < 6 && styles[id] == 0 {
				styles[id] = lvl + 1
			}
		}
	}
}

// coreTitle reads dc:title from docProps/core.xml, "" when absent.
func docxCoreTitle(d *zipguard.Archive) (string, error) {
	f := d.Find("docProps/core.xml")
	if f == nil {
		return "", nil
	}
	rc, err := d.Open(f)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	dec := zipguard.XMLDecoder(rc)
	in := false
	var b strings.Builder
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", d.ReadError("docProps/core.xml", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Local == "title"
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in && b.Len() < 1000 {
				b.Write(t)
			}
		}
	}
}

// styleNameLevel maps a style name or id ("heading 2", "Heading2", "Title")
// to a heading level, -1 for list styles, 0 for others.
func styleNameLevel(name string) int {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	switch {
	case n == "title":
		return 1
	case strings.HasPrefix(n, "heading") && len(n) == len("heading")+1 && n[7] >= '1' && n[7] <= '6':
		return int(n[7] - '0')
	case strings.HasPrefix(n, "list") && n != "listtable" && !strings.HasPrefix(n, "listtable"):
		return -1
	}
	return 0
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// smallInt parses a non-negative integer below 100.
func smallInt(s string) (int, bool) {
	if s == "" || len(s) > 2 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
