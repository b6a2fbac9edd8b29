package docx

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// docxWalk writes the WordprocessingML of word/document.xml as blocks.
// It matches element local names only, so namespace prefixes do not matter.
type docxWalk struct {
	w            Writer
	styles       map[string]int
	firstHeading string

	fallback int // open mc:Fallback elements, whose content repeats mc:Choice
	paras    int // open w:p elements (text boxes nest paragraphs)
	inText   bool
	para     strings.Builder
	style    string
	numbered bool
	level    int // list level (w:ilvl)
	outline  int // direct w:outlineLvl + 1, 0 when absent

	tables int
	inCell bool
	cell   strings.Builder
	row    []string
	rows   [][]string
}

func (d *docxWalk) run(dec *xml.Decoder) error {
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			if d.tables > 0 {
				d.endTable()
			}
			return d.w.Err()
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			d.start(t)
		case xml.EndElement:
			d.end(t.Name.Local)
		case xml.CharData:
			if d.inText && d.fallback == 0 && d.paras > 0 {
				d.para.Write(t)
			}
		}
		if d.w.Err() != nil {
			return d.w.Err()
		}
	}
}

func (d *docxWalk) start(se xml.StartElement) {
	local := se.Name.Local
	if local == "Fallback" {
		d.fallback++
	}
	if d.fallback > 0 {
		return
	}
	switch local {
	case "p":
		d.paras++
		if d.paras == 1 {
			d.para.Reset()
			d.style, d.numbered, d.level, d.outline = "", false, 0, 0
		} else {
			d.para.WriteByte(' ')
		}
	case "pStyle":
		if d.paras == 1 {
			d.style = attr(se, "val")
		}
	case "numPr":
		d.numbered = d.paras == 1
	case "ilvl":
		if n, ok := smallInt(attr(se, "val")); ok && d.paras == 1 {
			d.level = n
		}
	case "outlineLvl":
		if n, ok := smallInt(attr(se, "val")); ok && d.paras == 1 && n < 6 {
			d.outline = n + 1
		}
	case "t":
		d.inText = true
	case "tab":
		d.para.WriteByte(' ')
	case "br", "cr":
		d.para.WriteByte('\n')
	case "noBreakHyphen":
		d.para.WriteByte('-')
	case "tbl":
		d.tables++
		if d.tables > 1 {
			d.cell.WriteByte(' ')
		}
	case "tc":
		if d.tables == 1 {
			d.endCell()
			d.inCell = true
		} else {
			d.cell.WriteByte(' ')
		}
	}
}

func (d *docxWalk) end(local string) {
	if local == "Fallback" {
		d.fallback = max(0, d.fallback-1)
		return
	}
	if d.fallback > 0 {
		return
	}
	switch local {
	case "t":
		d.inText = false
	case "p":
		if d.paras == 0 {
			return
		}
		d.paras--
		if d.paras == 0 {
			d.endParagraph()
		} else {
			d.para.WriteByte(' ')
		}
	case "tc":
		if d.tables == 1 {
			d.endCell()
		}
	case "tr":
		if d.tables == 1 {
			d.endRow()
		}
	case "tbl":
		if d.tables == 1 {
			d.endTable()
		}
		d.tables = max(0, d.tables-1)
	}
}

func (d *docxWalk) endParagraph() {
	text := d.para.String()
	d.para.Reset()
	if d.tables > 0 {
		d.cell.WriteString(text)
		d.cell.WriteByte(' ')
		return
	}
	level := d.outline
	if l, ok := d.styles[d.style]; ok {
		level = l
	} else if l := styleNameLevel(d.style); l != 0 {
		level = l
	}
	switch {
	case level > 0:
		d.w.Heading(level, text)
		if d.firstHeading == "" {
			d.firstHeading = strings.Join(strings.Fields(text), " ")
		}
	case d.numbered || level < 0:
		d.w.ListItem(d.level, text)
	default:
		d.w.Paragraph(text)
	}
}

func (d *docxWalk) endCell() {
	if d.inCell {
		d.row = append(d.row, d.cell.String())
		d.cell.Reset()
		d.inCell = false
	}
}

func (d *docxWalk) endRow() {
	d.endCell()
	if len(d.row) > 0 {
		d.rows = append(d.rows, d.row)
		d.row = nil
	}
}

func (d *docxWalk) endTable() {
	d.endRow()
	d.w.Table(d.rows)
	d.rows = nil
}
