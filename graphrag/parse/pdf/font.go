package pdf

import (
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfFont decodes the strings shown with one font and measures their width.
type pdfFont struct {
	cmap    *pdfCMap         // from ToUnicode, when present
	enc     pdf.TextEncoding // simple fonts: the byte encoding
	twoByte bool             // Type0 font: codes are two bytes unless the CMap says otherwise
	first   int
	widths  []float64
	dw      float64
	cidW    map[int]float64
}

const (
	maxFontWidths  = 1 << 16
	maxToUnicode   = 1 << 20
	maxDifferences = 1024
)

// loadPDFFont reads a font dictionary; any dictionary, even a broken one,
// gives a usable font.
func (e *pdfExtractor) loadPDFFont(v pdf.Value) *pdfFont {
	f := &pdfFont{dw: 1000, enc: winAnsi{}}
	if v.Kind() != pdf.Dict {
		return f
	}
	f.twoByte = v.Key("Subtype").Name() == "Type0"
	if f.twoByte {
		desc := v.Key("DescendantFonts").Index(0)
		if dw := desc.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.dw = dw.Float64()
		}
		f.cidW = cidWidths(desc.Key("W"))
	} else {
		f.first = int(v.Key("FirstChar").Int64())
		w := v.Key("Widths")
		for i := range min(w.Len(), 256) {
			f.widths = append(f.widths, w.Index(i).Float64())
		}
		f.enc = simpleEncoding(v)
	}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		if data, ok := e.streamBytes(tu, maxToUnicode); ok {
			f.cmap = parseCMap(data)
		}
	}
	return f
}

// simpleEncoding picks the byte encoding of a simple font. It never lets
// the library read a ToUnicode CMap: that reader can loop forever.
func simpleEncoding(v pdf.Value) pdf.TextEncoding {
	enc := v.Key("Encoding")
	switch {
	case enc.Kind() == pdf.Name && enc.Name() == "MacRomanEncoding",
		enc.Kind() == pdf.Dict && enc.Key("Differences").Len() <= maxDifferences:
		f := pdf.Font{V: v}
		return f.Encoder()
	}
	return winAnsi{}
}

// cidWidths reads a CIDFont W array: "c [w1 w2 ...]" and "cfirst clast w".
func cidWidths(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	n := w.Len()
	for i := 0; i < n && len(out) < maxFontWidths; {
		c := int(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for k := range min(next.Len(), maxFontWidths) {
				out[c+k] = next.Index(k).Float64()
			}
			i += 2
			continue
		}
		last := int(next.Int64())
		width := w.Index(i + 2).Float64()
		for code := c; code <= last && code-c < maxFontWidths && len(out) < maxFontWidths; code++ {
			out[code] = width
		}
		i += 3
	}
	return out
}

// width is a glyph's advance in thousandths of the font size.
func (f *pdfFont) width(code int) float64 {
	if f.twoByte {
		if w, ok := f.cidW[code]; ok {
			return w
		}
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	return 500
}

// show decodes raw and returns its text, the sum of its glyph widths
// (thousandths), its glyph count and its count of single-byte spaces.
func (f *pdfFont) show(raw string) (text string, width float64, glyphs, spaces int) {
	var b strings.Builder
	def := 1
	if f.twoByte {
		def = 2
	}
	for i := 0; i < len(raw); {
		n := def
		if f.cmap != nil {
			n = f.cmap.codeLen(raw[i:], def)
		}
		n = max(1, min(n, len(raw)-i))
		code := raw[i : i+n]
		i += n
		cv := int(codeValue(code))
		width += f.width(cv)
		glyphs++
		if n == 1 && code[0] == ' ' {
			spaces++
		}
		if f.cmap != nil {
			if s, ok := f.cmap.lookup(code); ok {
				b.WriteString(s)
				continue
			}
		}
		if !f.twoByte && f.enc != nil {
			b.WriteString(f.enc.Decode(code))
		}
	}
	return b.String(), width, glyphs, spaces
}

// winAnsi decodes single bytes as Windows-1252, the common default.
type winAnsi struct{}

var winAnsiHigh = [32]rune{
	'€', 0, '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', 0, 'Ž', 0,
	0, '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', 0, 'ž', 'Ÿ',
}

func (winAnsi) Decode(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= 0x80 && c < 0xA0:
			if r := winAnsiHigh[c-0x80]; r != 0 {
				b.WriteRune(r)
			}
		default:
			b.WriteRune(rune(c))
		}
	}
	return b.String()
}
