// Package pptx reads the text of a PowerPoint deck (.pptx) with archive/zip
// and encoding/xml: each slide's title, text boxes and tables, and its
// speaker notes, in the deck's order.
package pptx

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
	"github.com/hopwise/hopwise/graphrag/parse/zipguard"
)

// Slide is one slide's text. Number is its 1-based position in the deck.
type Slide struct {
	Number int
	Title  string
	Blocks []Block // text boxes and tables, in the slide's order
	Notes  []string
}

// Block is one text box (Lines) or one table (Rows).
type Block struct {
	Lines []string
	Rows  [][]string
}

// Deck is what Read found: the slides and the title from the document
// properties ("" when unset).
type Deck struct {
	Title  string
	Slides []Slide
}

// Read reads a deck held in data. Every byte inflated from the archive counts
// against maxInflated (parseerr.ErrTooLarge past it), with the entry cap of
// zipguard.
func Read(data []byte, maxInflated int64) (Deck, error) {
	a, err := zipguard.Open(data, maxInflated, "pptx")
	if err != nil {
		return Deck{}, err
	}
	paths, err := slidePaths(a)
	if err != nil {
		return Deck{}, err
	}
	var deck Deck
	if deck.Title, err = coreTitle(a); err != nil {
		return Deck{}, err
	}
	for i, p := range paths {
		s, err := readSlide(a, p)
		if err != nil {
			return Deck{}, err
		}
		s.Number = i + 1
		deck.Slides = append(deck.Slides, s)
	}
	return deck, nil
}

// slidePaths lists the slides' archive paths in the order
// ppt/presentation.xml gives; without it, by the number in their names.
func slidePaths(a *zipguard.Archive) ([]string, error) {
	rels, err := relationships(a, "ppt/presentation.xml")
	if err != nil {
		return nil, err
	}
	var ids []string
	if f := a.Find("ppt/presentation.xml"); f != nil {
		err := walk(a, f, func(se xml.StartElement, _ *xml.Decoder) error {
			if se.Name.Local == "sldId" {
				ids = append(ids, attr(se, "id", "http://schemas.openxmlformats.org/officeDocument/2006/relationships"))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var paths []string
	for _, id := range ids {
		if r, ok := rels[id]; ok && a.Find(r.target) != nil {
			paths = append(paths, r.target)
		}
	}
	if len(paths) > 0 {
		return paths, nil
	}
	for _, f := range a.Files() {
		if n := slideNumber(f.Name); n > 0 {
			paths = append(paths, strings.TrimPrefix(f.Name, "/"))
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: pptx has no slides", parseerr.ErrMalformed)
	}
	sort.SliceStable(paths, func(i, j int) bool { return slideNumber(paths[i]) < slideNumber(paths[j]) })
	return paths, nil
}

// slideNumber is N of ppt/slides/slideN.xml, 0 for any other name.
func slideNumber(name string) int {
	name = strings.TrimPrefix(name, "/")
	rest, ok := strings.CutPrefix(name, "ppt/slides/slide")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, ".xml"))
	if err != nil || !strings.HasSuffix(rest, ".xml") || n <= 0 {
		return 0
	}
	return n
}

type relationship struct{ typ, target string }

// relationships reads the .rels part of an archive part: relationship id to
// type and target (resolved to an archive path). A part without one has none.
func relationships(a *zipguard.Archive, part string) (map[string]relationship, error) {
	dir, file := path.Split(part)
	f := a.Find(dir + "_rels/" + file + ".rels")
	rels := map[string]relationship{}
	if f == nil {
		return rels, nil
	}
	err := walk(a, f, func(se xml.StartElement, _ *xml.Decoder) error {
		if se.Name.Local == "Relationship" && attr(se, "TargetMode", "") != "External" {
			target := attr(se, "Target", "")
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(dir, target)
			}
			rels[attr(se, "Id", "")] = relationship{typ: attr(se, "Type", ""), target: target}
		}
		return nil
	})
	return rels, err
}

// readSlide reads one slide and the notes slide it links to.
func readSlide(a *zipguard.Archive, part string) (Slide, error) {
	var s Slide
	blocks, title, err := shapes(a, a.Find(part))
	if err != nil {
		return Slide{}, err
	}
	s.Title, s.Blocks = title, blocks
	rels, err := relationships(a, part)
	if err != nil {
		return Slide{}, err
	}
	for _, r := range rels {
		if !strings.HasSuffix(r.typ, "/notesSlide") {
			continue
		}
		if f := a.Find(r.target); f != nil {
			notes, _, err := shapes(a, f)
			if err != nil {
				return Slide{}, err
			}
			for _, b := range notes {
				s.Notes = append(s.Notes, b.Lines...)
			}
		}
		break
	}
	return s, nil
}

// skipped placeholders hold the slide number, date, footer and header, and
// in notes the slide's picture: repeated on every slide, no content.
var skipped = map[string]bool{"sldNum": true, "dt": true, "ftr": true, "hdr": true, "sldImg": true}

// shapes reads the text of a slide or notes part: its text boxes and tables
// in order, with the title placeholder's text apart.
func shapes(a *zipguard.Archive, f *zip.File) (blocks []Block, title string, err error) {
	w := &shapeWalk{}
	err = walk(a, f, w.start)
	return w.blocks, w.title, err
}

// shapeWalk follows the elements of one part. The text of a paragraph
// (a:p) is the a:t runs inside it, a:br a line break; a shape (p:sp) is a
// text box of paragraphs; a table (a:tbl) has rows (a:tr) of cells (a:tc).
type shapeWalk struct {
	blocks []Block
	title  string
}

func (w *shapeWalk) start(se xml.StartElement, d *xml.Decoder) error {
	switch se.Name.Local {
	case "sp":
		return w.shape(d)
	case "tbl":
		return w.table(d)
	}
	return nil
}

// shape reads a p:sp up to its end.
func (w *shapeWalk) shape(d *xml.Decoder) error {
	ph := ""
	var lines []string
	err := until(d, "sp", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "ph":
			ph = attr(se, "type", "")
			if ph == "" {
				ph = "body"
			}
		case "p":
			line, err := paragraph(d)
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
			return err
		}
		return nil
	})
	switch {
	case err != nil || len(lines) == 0 || skipped[ph]:
	case (ph == "title" || ph == "ctrTitle") && w.title == "":
		w.title = strings.Join(lines, " ")
	default:
		w.blocks = append(w.blocks, Block{Lines: lines})
	}
	return err
}

// table reads an a:tbl up to its end.
func (w *shapeWalk) table(d *xml.Decoder) error {
	var rows [][]string
	err := until(d, "tbl", func(se xml.StartElement) error {
		switch se.Name.Local {
		case "tr":
			rows = append(rows, nil)
		case "tc":
			if len(rows) > 0 {
				rows[len(rows)-1] = append(rows[len(rows)-1], "")
			}
		case "p":
			line, err := paragraph(d)
			if n := len(rows); n > 0 && len(rows[n-1]) > 0 {
				cell := &rows[n-1][len(rows[n-1])-1]
				*cell = strings.TrimSpace(*cell + " " + line)
			}
			return err
		}
		return nil
	})
	if len(rows) > 0 {
		w.blocks = append(w.blocks, Block{Rows: rows})
	}
	return err
}

// paragraph reads an a:p up to its end and returns its text.
func paragraph(d *xml.Decoder) (string, error) {
	var b strings.Builder
	in := false
	for {
		tok, err := d.RawToken()
		if err != nil {
			return b.String(), err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "t":
				in = true
			case "br":
				b.WriteString("\n")
			case "tab":
				b.WriteString("\t")
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t":
				in = false
			case "p":
				return b.String(), nil
			}
		case xml.CharData:
			if in {
				b.Write(t)
			}
		}
	}
}

// until hands every start element to fn until the end of the element named
// end (which the caller has just read the start of).
func until(d *xml.Decoder, end string, fn func(xml.StartElement) error) error {
	depth := 0
	for {
		tok, err := d.RawToken()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == end {
				depth++
			}
			if err := fn(t); err != nil {
				return err
			}
		case xml.EndElement:
			if t.Name.Local == end {
				if depth == 0 {
					return nil
				}
				depth--
			}
		}
	}
}

// walk decodes one part, handing each start element to fn with the decoder
// (fn may read on); decoding errors become ErrMalformed, the budget's stay
// ErrTooLarge.
func walk(a *zipguard.Archive, f *zip.File, fn func(xml.StartElement, *xml.Decoder) error) error {
	rc, err := a.Open(f)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := zipguard.XMLDecoder(rc)
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err == nil {
			if se, ok := tok.(xml.StartElement); ok {
				err = fn(se, d)
			}
		}
		if errors.Is(err, io.EOF) {
			return a.ReadError(f.Name, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return a.ReadError(f.Name, err)
		}
	}
}

// coreTitle reads dc:title from docProps/core.xml, "" when absent.
func coreTitle(a *zipguard.Archive) (string, error) {
	f := a.Find("docProps/core.xml")
	if f == nil {
		return "", nil
	}
	var title string
	err := walk(a, f, func(se xml.StartElement, d *xml.Decoder) error {
		if se.Name.Local != "title" || title != "" {
			return nil
		}
		t, err := text(d, "title")
		title = strings.Join(strings.Fields(t), " ")
		return err
	})
	return title, err
}

// text reads the character data up to the end of the element named end,
// keeping at most 1,000 bytes.
func text(d *xml.Decoder, end string) (string, error) {
	var b strings.Builder
	for {
		tok, err := d.RawToken()
		if err != nil {
			return b.String(), err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if t.Name.Local == end {
				return b.String(), nil
			}
		case xml.CharData:
			if b.Len() < 1000 {
				b.Write(t)
			}
		}
	}
}

// attr is the value of the attribute with this local name (and namespace,
// when space is not ""), "" when absent. RawToken leaves prefixes unresolved,
// so a namespace is matched by its usual prefix as well.
func attr(se xml.StartElement, local, space string) string {
	for _, a := range se.Attr {
		if a.Name.Local != local {
			continue
		}
		if space == "" || a.Name.Space == space || a.Name.Space == "r" {
			return a.Value
		}
	}
	return ""
}
