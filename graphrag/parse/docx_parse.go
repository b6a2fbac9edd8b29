package parse

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxZipEntries caps the entries of a DOCX archive; real documents have tens.
const maxZipEntries = 5000

// parseDOCX reads word/document.xml (with word/styles.xml for heading styles
// and docProps/core.xml for the title) from a DOCX archive. Every byte
// inflated from the archive counts against lim.MaxInflated, whatever sizes
// the archive declares.
func parseDOCX(name string, r io.Reader, lim Limits) (Parsed, error) {
	data, err := readAll(r, lim.MaxBytes)
	if err != nil {
		return Parsed{}, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Parsed{}, fmt.Errorf("%w: empty file", ErrEmpty)
	}
	if !bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return Parsed{}, fmt.Errorf("%w: docx is not a zip archive", ErrMalformed)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Parsed{}, fmt.Errorf("%w: docx zip: %v", ErrMalformed, err)
	}
	if len(zr.File) > maxZipEntries {
		return Parsed{}, fmt.Errorf("%w: docx zip has %d entries, cap %d", ErrTooLarge, len(zr.File), maxZipEntries)
	}
	dz := &docxZip{zr: zr, max: lim.MaxInflated}
	styles, err := dz.styles()
	if err != nil {
		return Parsed{}, err
	}
	title, err := dz.coreTitle()
	if err != nil {
		return Parsed{}, err
	}
	f := dz.find("word/document.xml")
	if f == nil {
		return Parsed{}, fmt.Errorf("%w: docx has no word/document.xml", ErrMalformed)
	}
	rc, err := dz.open(f)
	if err != nil {
		return Parsed{}, err
	}
	defer rc.Close()
	dw := &docxWalk{w: newMDWriter(lim.MaxInflated), styles: styles}
	if err := dw.run(newXMLDecoder(rc)); err != nil {
		return Parsed{}, err
	}
	if title == "" {
		title = dw.firstHeading
	}
	return Parsed{Title: cleanTitle(title), Format: "docx", Markdown: dw.w.String()}, nil
}

// docxZip opens archive entries through one shared inflation budget. The
// declared sizes give a fast refusal; the bytes actually inflated are
// counted as well, since declared sizes can lie.
type docxZip struct {
	zr       *zip.Reader
	inflated int64
	max      int64
}

func (d *docxZip) find(name string) *zip.File {
	for _, f := range d.zr.File {
		if strings.EqualFold(strings.TrimPrefix(f.Name, "/"), name) {
			return f
		}
	}
	return nil
}

func (d *docxZip) open(f *zip.File) (io.ReadCloser, error) {
	if f.UncompressedSize64 > uint64(d.max) {
		return nil, fmt.Errorf("%w: docx entry %s declares %d bytes inflated, cap %d", ErrTooLarge, f.Name, f.UncompressedSize64, d.max)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: docx entry %s: %v", ErrMalformed, f.Name, err)
	}
	cr := &countingReader{r: rc, n: &d.inflated, max: d.max, what: "docx inflated content"}
	return struct {
		io.Reader
		io.Closer
	}{cr, rc}, nil
}

// readErr classifies an error met while decoding an archive entry.
func readErr(entry string, err error) error {
	if errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("%w: docx %s: %v", ErrMalformed, entry, err)
}

func newXMLDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") || strings.EqualFold(label, "utf8") {
			return input, nil
		}
		return nil, fmt.Errorf("unsupported XML encoding %q", label)
	}
	return d
}

// styles maps paragraph style ids to heading levels (1..6) and marks list
// styles with -1, from word/styles.xml when present.
func (d *docxZip) styles() (map[string]int, error) {
	f := d.find("word/styles.xml")
	if f == nil {
		return nil, nil
	}
	rc, err := d.open(f)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	styles := map[string]int{}
	dec := newXMLDecoder(rc)
	id := ""
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return styles, nil
		}
		if err != nil {
			return nil, readErr("word/styles.xml", err)
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
func (d *docxZip) coreTitle() (string, error) {
	f := d.find("docProps/core.xml")
	if f == nil {
		return "", nil
	}
	rc, err := d.open(f)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	dec := newXMLDecoder(rc)
	in := false
	var b strings.Builder
	for {
		tok, err := dec.RawToken()
		if errors.Is(err, io.EOF) {
			return b.String(), nil
		}
		if err != nil {
			return "", readErr("docProps/core.xml", err)
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
