package pdf

import (
	"sort"
	"strings"
	"unicode/utf16"
)

// Caps on what one ToUnicode CMap may declare; real ones stay far below.
const (
	maxCMapChars  = 1 << 17
	maxCMapRanges = 1 << 14
)

// pdfCMap maps character codes to Unicode text (a ToUnicode CMap).
type pdfCMap struct {
	space  [4][][2]string // codespace ranges by code length - 1: low, high
	chars  map[string]string
	ranges []cmapRange // sorted by lo
}

type cmapRange struct {
	lo, hi uint32
	n      int      // code length in bytes
	dst    string   // UTF-16BE start, incremented by the code's offset
	dsts   []string // or one UTF-16BE string per code
}

// parseCMap reads the codespace ranges, bfchar and bfrange entries of a CMap.
func parseCMap(data []byte) *pdfCMap {
	m := &pdfCMap{chars: map[string]string{}}
	l := &pdfLexer{s: data}
	var stk []pdfOperand
	for {
		v, op, ok := l.next()
		if !ok {
			break
		}
		if op == "" {
			if len(stk) < 3*maxCMapChars {
				stk = append(stk, v)
			}
			continue
		}
		switch op {
		case "endcodespacerange":
			for i := 0; i+1 < len(stk); i += 2 {
				lo, hi := stk[i].str, stk[i+1].str
				if n := len(lo); n >= 1 && n <= 4 && len(hi) == n {
					m.space[n-1] = append(m.space[n-1], [2]string{lo, hi})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(stk) && len(m.chars) < maxCMapChars; i += 2 {
				if stk[i].kind == 's' && stk[i+1].kind == 's' {
					m.chars[stk[i].str] = utf16Text(stk[i+1].str)
				}
			}
		case "endbfrange":
			for i := 0; i+2 < len(stk) && len(m.ranges) < maxCMapRanges; i += 3 {
				m.addRange(stk[i], stk[i+1], stk[i+2])
			}
		}
		stk = stk[:0]
	}
	sort.SliceStable(m.ranges, func(i, j int) bool { return m.ranges[i].lo < m.ranges[j].lo })
	return m
}

func (m *pdfCMap) addRange(lo, hi, dst pdfOperand) {
	n := len(lo.str)
	if n < 1 || n > 4 || len(hi.str) != n || lo.kind != 's' {
		return
	}
	r := cmapRange{lo: codeValue(lo.str), hi: codeValue(hi.str), n: n}
	if r.hi < r.lo {
		return
	}
	switch dst.kind {
	case 's':
		r.dst = dst.str
	case 'a':
		for _, d := range dst.arr {
			r.dsts = append(r.dsts, d.str)
		}
	default:
		return
	}
	m.ranges = append(m.ranges, r)
}

func codeValue(s string) uint32 {
	var v uint32
	for i := 0; i < len(s); i++ {
		v = v<<8 | uint32(s[i])
	}
	return v
}

// codeLen is the length of the code starting raw, by the codespace ranges;
// def when no range matches.
func (m *pdfCMap) codeLen(raw string, def int) int {
	for n := 1; n <= 4 && n <= len(raw); n++ {
		for _, sp := range m.space[n-1] {
			if inCodeRange(raw[:n], sp[0], sp[1]) {
				return n
			}
		}
	}
	return min(def, len(raw))
}

func inCodeRange(code, lo, hi string) bool {
	for i := 0; i < len(code); i++ {
		if code[i] < lo[i] || code[i] > hi[i] {
			return false
		}
	}
	return true
}

// lookup maps one code to text; ok is false when the CMap does not know it.
func (m *pdfCMap) lookup(code string) (string, bool) {
	if s, ok := m.chars[code]; ok {
		return s, true
	}
	v := codeValue(code)
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i].lo > v })
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		r := m.ranges[j]
		if r.n != len(code) || v > r.hi || v < r.lo {
			continue
		}
		off := int(v - r.lo)
		if r.dsts != nil {
			if off < len(r.dsts) {
				return utf16Text(r.dsts[off]), true
			}
			return "", false
		}
		return utf16Offset(r.dst, off), true
	}
	return "", false
}

// utf16Text decodes UTF-16BE bytes, dropping an odd trailing byte.
func utf16Text(s string) string {
	units := make([]uint16, len(s)/2)
	for i := range units {
		units[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
	}
	return string(utf16.Decode(units))
}

// utf16Offset decodes UTF-16BE text after adding off to its last unit.
func utf16Offset(s string, off int) string {
	units := make([]uint16, len(s)/2)
	for i := range units {
		units[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
	}
	if len(units) == 0 {
		return ""
	}
	units[len(units)-1] += uint16(off)
	return strings.ToValidUTF8(string(utf16.Decode(units)), "")
}
