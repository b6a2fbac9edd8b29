package pdf

import (
	"strconv"
)

// pdfLexer reads the tokens of a PDF content stream or CMap from memory.
// Every loop advances through a finite slice, so it ends on any input.
type pdfLexer struct {
	s []byte
	i int
}

// pdfOperand is one operand: kind 'n' number, 's' string, 'N' name, 'a'
// array, 'o' anything else (dictionary, boolean, null).
type pdfOperand struct {
	kind byte
	num  float64
	str  string
	arr  []pdfOperand
}

const maxPDFArray = 1 << 16

func isPDFSpace(c byte) bool {
	return c == 0 || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

func isPDFDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *pdfLexer) skipSpace() {
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c == '%' {
			for l.i < len(l.s) && l.s[l.i] != '\n' && l.s[l.i] != '\r' {
				l.i++
			}
			continue
		}
		if !isPDFSpace(c) {
			return
		}
		l.i++
	}
}

// next returns the next operand, or the next operator as op. ok is false at
// the end of input.
func (l *pdfLexer) next() (v pdfOperand, op string, ok bool) {
	return l.token(0)
}

func (l *pdfLexer) token(depth int) (v pdfOperand, op string, ok bool) {
	l.skipSpace()
	if l.i >= len(l.s) {
		return v, "", false
	}
	switch c := l.s[l.i]; c {
	case '(':
		l.i++
		return pdfOperand{kind: 's', str: l.literal()}, "", true
	case '<':
		if l.i+1 < len(l.s) && l.s[l.i+1] == '<' {
			l.i += 2
			l.skipDict(depth)
			return pdfOperand{kind: 'o'}, "", true
		}
		l.i++
		return pdfOperand{kind: 's', str: l.hex()}, "", true
	case '/':
		l.i++
		return pdfOperand{kind: 'N', str: l.name()}, "", true
	case '[':
		l.i++
		return pdfOperand{kind: 'a', arr: l.array(depth)}, "", true
	case ']', '>', ')', '{', '}':
		l.i++
		return v, string(c), true
	}
	start := l.i
	for l.i < len(l.s) && !isPDFSpace(l.s[l.i]) && !isPDFDelim(l.s[l.i]) {
		l.i++
	}
	word := string(l.s[start:l.i])
	if c := word[0]; c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' {
		n, _ := strconv.ParseFloat(word, 64)
		return pdfOperand{kind: 'n', num: n}, "", true
	}
	switch word {
	case "true", "false", "null":
		return pdfOperand{kind: 'o'}, "", true
	}
	return v, word, true
}

func (l *pdfLexer) literal() string {
	var b []byte
	depth := 1
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return string(b)
			}
		case '\\':
			if l.i >= len(l.s) {
				return string(b)
			}
			c = l.s[l.i]
			l.i++
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.i < len(l.s) && l.s[l.i] == '\n' {
					l.i++
				}
				continue
			case '\n':
				continue
			case '0', '1', '2', '3', '4', '5', '6', '7':
				n := int(c - '0')
				for k := 0; k < 2 && l.i < len(l.s) && l.s[l.i] >= '0' && l.s[l.i] <= '7'; k++ {
					n = n*8 + int(l.s[l.i]-'0')
					l.i++
				}
				c = byte(n)
			}
		}
		b = append(b, c)
	}
	return string(b)
}

func (l *pdfLexer) hex() string {
	var b []byte
	hi, half := byte(0), false
	for l.i < len(l.s) {
		c := l.s[l.i]
		l.i++
		if c == '>' {
			break
		}
		n, ok := unhexByte(c)
		if !ok {
			continue
		}
		if half {
			b = append(b, hi<<4|n)
		} else {
			hi = n
		}
		half = !half
	}
	if half {
		b = append(b, hi<<4)
	}
	return string(b)
}

func unhexByte(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *pdfLexer) name() string {
	var b []byte
	for l.i < len(l.s) && !isPDFSpace(l.s[l.i]) && !isPDFDelim(l.s[l.i]) {
		c := l.s[l.i]
		l.i++
		if c == '#' && l.i+1 < len(l.s) {
			h, ok1 := unhexByte(l.s[l.i])
			lo, ok2 := unhexByte(l.s[l.i+1])
			if ok1 && ok2 {
				c = h<<4 | lo
				l.i += 2
			}
		}
		b = append(b, c)
	}
	return string(b)
}

// array reads operands up to "]"; operators inside are dropped and nesting
// deeper than 16 is flattened away.
func (l *pdfLexer) array(depth int) []pdfOperand {
	var out []pdfOperand
	for {
		if depth > 16 {
			l.skipUntil(']')
			return out
		}
		v, op, ok := l.token(depth + 1)
		if !ok || op == "]" {
			return out
		}
		if op == "" && len(out) < maxPDFArray {
			out = append(out, v)
		}
	}
}

// skipDict skips a dictionary body up to its ">>".
func (l *pdfLexer) skipDict(depth int) {
	if depth > 16 {
		l.skipUntil('>')
		return
	}
	for {
		_, op, ok := l.token(depth + 1)
		if !ok {
			return
		}
		if op == ">" {
			if l.i < len(l.s) && l.s[l.i] == '>' {
				l.i++
			}
			return
		}
	}
}

func (l *pdfLexer) skipUntil(c byte) {
	for l.i < len(l.s) && l.s[l.i] != c {
		l.i++
	}
	if l.i < len(l.s) {
		l.i++
	}
}

// skipInlineImage moves past inline image data that follows the ID operator:
// up to "EI" standing alone between white space (or the end).
func (l *pdfLexer) skipInlineImage() {
	if l.i < len(l.s) && isPDFSpace(l.s[l.i]) {
		l.i++
	}
	for j := l.i; j+1 < len(l.s); j++ {
		if l.s[j] == 'E' && l.s[j+1] == 'I' && (j == 0 || isPDFSpace(l.s[j-1])) &&
			(j+2 == len(l.s) || isPDFSpace(l.s[j+2]) || isPDFDelim(l.s[j+2])) {
			l.i = j + 2
			return
		}
	}
	l.i = len(l.s)
}
