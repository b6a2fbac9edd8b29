package pdf

import (
	"math"

	"github.com/ledongthuc/pdf"
)

// matrix is a PDF transformation [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: apply m, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(x, y float64) matrix { return matrix{1, 0, 0, 1, x, y} }

// gstate is the part of the graphics state that text extraction needs.
type gstate struct {
	ctm                        matrix
	font                       *pdfFont
	size, tc, tw, th, tl, rise float64
}

// contentRun interprets one content stream (a page or a form XObject).
type contentRun struct {
	e       *pdfExtractor
	res     pdf.Value
	depth   int
	gs      gstate
	saved   []gstate
	dropped int // q operators past the saved-state cap
	tm, tlm matrix
	fonts   map[string]*pdfFont
}

const (
	maxPDFOperands  = 4096
	maxPDFSaveDepth = 64
	maxFormDepth    = 8
)

func (e *pdfExtractor) runContent(content []byte, res pdf.Value, gs gstate, depth int) {
	c := &contentRun{e: e, res: res, depth: depth, gs: gs, tm: identity, tlm: identity, fonts: map[string]*pdfFont{}}
	l := &pdfLexer{s: content}
	var stk []pdfOperand
	for {
		v, op, ok := l.next()
		if !ok {
			return
		}
		if op == "" {
			if len(stk) < maxPDFOperands {
				stk = append(stk, v)
			}
			continue
		}
		if op == "ID" {
			l.skipInlineImage()
		} else {
			c.do(op, stk)
		}
		stk = stk[:0]
	}
}

// nums returns the last n operands as numbers; ok is false if any is not one.
func nums(stk []pdfOperand, n int) ([]float64, bool) {
	if len(stk) < n {
		return nil, false
	}
	out := make([]float64, n)
	for i, v := range stk[len(stk)-n:] {
		if v.kind != 'n' || math.IsNaN(v.num) || math.IsInf(v.num, 0) {
			return nil, false
		}
		out[i] = v.num
	}
	return out, true
}

func lastString(stk []pdfOperand) (string, bool) {
	if len(stk) == 0 || stk[len(stk)-1].kind != 's' {
		return "", false
	}
	return stk[len(stk)-1].str, true
}

func (c *contentRun) do(op string, stk []pdfOperand) {
	switch op {
	case "q":
		if len(c.saved) < maxPDFSaveDepth {
			c.saved = append(c.saved, c.gs)
		} else {
			c.dropped++
		}
	case "Q":
		if c.dropped > 0 {
			c.dropped--
		} else if n := len(c.saved); n > 0 {
			c.gs = c.saved[n-1]
			c.saved = c.saved[:n-1]
		}
	case "cm":
		if a, ok := nums(stk, 6); ok {
			c.gs.ctm = matrix(a).mul(c.gs.ctm)
		}
	case "BT":
		c.tm, c.tlm = identity, identity
	case "Tf":
		if len(stk) >= 2 && stk[len(stk)-2].kind == 'N' && stk[len(stk)-1].kind == 'n' {
			c.gs.font = c.font(stk[len(stk)-2].str)
			c.gs.size = stk[len(stk)-1].num
		}
	case "Tc", "Tw", "Tz", "TL", "Ts":
		if a, ok := nums(stk, 1); ok {
			c.setParam(op, a[0])
		}
	case "Td", "TD":
		if a, ok := nums(stk, 2); ok {
			if op == "TD" {
				c.gs.tl = -a[1]
			}
			c.moveLine(a[0], a[1])
		}
	case "Tm":
		if a, ok := nums(stk, 6); ok {
			c.tm, c.tlm = matrix(a), matrix(a)
		}
	case "T*":
		c.moveLine(0, -c.gs.tl)
	case "Tj":
		if s, ok := lastString(stk); ok {
			c.show(s)
		}
	case "'":
		c.moveLine(0, -c.gs.tl)
		if s, ok := lastString(stk); ok {
			c.show(s)
		}
	case "\"":
		if a, ok := nums(stk[:max(0, len(stk)-1)], 2); ok {
			c.gs.tw, c.gs.tc = a[0], a[1]
		}
		c.moveLine(0, -c.gs.tl)
		if s, ok := lastString(stk); ok {
			c.show(s)
		}
	case "TJ":
		if len(stk) > 0 && stk[len(stk)-1].kind == 'a' {
			c.showArray(stk[len(stk)-1].arr)
		}
	case "Do":
		if len(stk) > 0 && stk[len(stk)-1].kind == 'N' {
			c.form(stk[len(stk)-1].str)
		}
	}
}

func (c *contentRun) setParam(op string, v float64) {
	switch op {
	case "Tc":
		c.gs.tc = v
	case "Tw":
		c.gs.tw = v
	case "Tz":
		c.gs.th = v / 100
	case "TL":
		c.gs.tl = v
	case "Ts":
		c.gs.rise = v
	}
}

func (c *contentRun) moveLine(tx, ty float64) {
	c.tlm = translate(tx, ty).mul(c.tlm)
	c.tm = c.tlm
}

func (c *contentRun) showArray(arr []pdfOperand) {
	for _, v := range arr {
		switch v.kind {
		case 's':
			c.show(v.str)
		case 'n':
			if !math.IsNaN(v.num) && !math.IsInf(v.num, 0) {
				c.tm = translate(-v.num/1000*c.gs.size*c.gs.th, 0).mul(c.tm)
			}
		}
	}
}

// show decodes one string, advances the text matrix past it and hands the
// text with its device-space position to the page's text collector.
func (c *contentRun) show(raw string) {
	f := c.gs.font
	if f == nil {
		f = c.e.fallbackFont
	}
	text, width, glyphs, spaces := f.show(raw)
	trm := c.tm.mul(c.gs.ctm)
	size := math.Abs(c.gs.size) * math.Hypot(trm[2], trm[3])
	if size < 0.1 || math.IsNaN(size) || math.IsInf(size, 0) {
		size = math.Max(math.Abs(c.gs.size), 1)
	}
	advance := (width/1000*c.gs.size + float64(glyphs)*c.gs.tc + float64(spaces)*c.gs.tw) * c.gs.th
	c.tm = translate(advance, 0).mul(c.tm)
	end := c.tm.mul(c.gs.ctm)
	c.e.out.add(text, trm[4], trm[5], end[4], size)
}

// font returns the page font of that resource name, loading each font
// dictionary once per document.
func (c *contentRun) font(name string) *pdfFont {
	if f, ok := c.fonts[name]; ok {
		return f
	}
	v := c.res.Key("Font").Key(name)
	key := v.String()
	f, ok := c.e.fonts[key]
	if !ok {
		f = c.e.loadPDFFont(v)
		if len(c.e.fonts) < 4096 {
			c.e.fonts[key] = f
		}
	}
	c.fonts[name] = f
	return f
}

// form runs a form XObject's content with its own resources and matrix.
func (c *contentRun) form(name string) {
	if c.depth >= maxFormDepth {
		return
	}
	xo := c.res.Key("XObject").Key(name)
	if xo.Kind() != pdf.Stream || xo.Key("Subtype").Name() != "Form" {
		return
	}
	data, _ := c.e.streamBytes(xo, -1)
	res := xo.Key("Resources")
	if res.IsNull() {
		res = c.res
	}
	gs := c.gs
	if m := xo.Key("Matrix"); m.Len() == 6 {
		var a matrix
		for i := range a {
			a[i] = m.Index(i).Float64()
		}
		gs.ctm = a.mul(gs.ctm)
	}
	c.e.runContent(data, res, gs, c.depth+1)
}
