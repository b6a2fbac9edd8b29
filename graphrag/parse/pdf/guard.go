package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// The PDF library trusts numbers in the file (object counts, array sizes)
// to size allocations, can loop forever on a reference cycle or on an
// object stream that ends inside a hex string, and converts only some of
// its failures into errors. These guards run before and under it.

// pdfLimit is panicked from inside library calls when a budget runs out.
// It is a runtime.Error so that the library's own recovers re-panic it.
type pdfLimit struct{ err error }

func (p pdfLimit) Error() string { return p.err.Error() }
func (p pdfLimit) Unwrap() error { return p.err }
func (pdfLimit) RuntimeError()   {}

// budgetReaderAt serves the PDF bytes and panics with pdfLimit once the
// library has read far more than the file holds: a cycle of references
// re-reads the same objects without end.
type budgetReaderAt struct {
	r    *bytes.Reader
	left int64
}

const pdfReadCallCost = 4096

func newBudgetReaderAt(data []byte) *budgetReaderAt {
	return &budgetReaderAt{r: bytes.NewReader(data), left: 64*int64(len(data)) + 64<<20}
}

func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	b.left -= int64(len(p)) + pdfReadCallCost
	if b.left < 0 {
		panic(pdfLimit{fmt.Errorf("%w: reading the PDF takes too much work (reference cycle?)", parseerr.ErrTooLarge)})
	}
	return b.r.ReadAt(p, off)
}

// maxPDFObjects bounds object numbers and counts for a file of n bytes.
func maxPDFObjects(n int) int64 { return int64(n)/16 + 4096 }

// checkPDFNumbers refuses files whose xref sizes, object-stream counts or
// predictor columns would make the library allocate without bound.
func checkPDFNumbers(data []byte) error {
	limit := maxPDFObjects(len(data))
	checks := []struct {
		key    string
		max    int64
		direct bool // an indirect reference is refused
		array  bool
	}{
		{"/Size", limit, false, false},
		{"/N", limit, true, false},
		{"/Columns", 1 << 16, true, false},
		{"/W", 16, false, true},
		{"/Index", limit, false, true},
	}
	for _, c := range checks {
		for i := 0; ; {
			j := bytes.Index(data[i:], []byte(c.key))
			if j < 0 {
				break
			}
			i += j + len(c.key)
			if i < len(data) && !isPDFSpace(data[i]) && !isPDFDelim(data[i]) {
				continue
			}
			if err := checkPDFValue(data, i, c.key, c.max, c.direct, c.array); err != nil {
				return err
			}
		}
	}
	return checkXrefTables(data, limit)
}

func checkPDFValue(data []byte, i int, key string, bound int64, direct, array bool) error {
	l := &pdfLexer{s: data, i: i}
	l.skipSpace()
	if array {
		if l.i >= len(data) || data[l.i] != '[' {
			return nil
		}
		l.i++
		var prev int64
		for n := 0; ; n++ {
			v, ok := scanInt(l)
			if !ok {
				return nil
			}
			total := v
			if key == "/Index" && n%2 == 1 {
				total = prev + v
			}
			if v < 0 || total > bound {
				return fmt.Errorf("%w: pdf %s value %d out of range", parseerr.ErrMalformed, key, v)
			}
			prev = v
		}
	}
	v, ok := scanInt(l)
	if !ok {
		return nil
	}
	if v > bound {
		return fmt.Errorf("%w: pdf %s value %d out of range", parseerr.ErrMalformed, key, v)
	}
	if direct {
		save := l.i
		_, ok1 := scanInt(l)
		l.skipSpace()
		if ok1 && l.i < len(data) && data[l.i] == 'R' {
			return fmt.Errorf("%w: pdf %s given by reference", parseerr.ErrMalformed, key)
		}
		l.i = save
	}
	return nil
}

// scanInt reads an integer token, saturating far above any valid value.
func scanInt(l *pdfLexer) (int64, bool) {
	l.skipSpace()
	start := l.i
	if l.i < len(l.s) && (l.s[l.i] == '-' || l.s[l.i] == '+') {
		l.i++
	}
	for l.i < len(l.s) && l.s[l.i] >= '0' && l.s[l.i] <= '9' {
		l.i++
	}
	if l.i == start || l.i < len(l.s) && l.s[l.i] == '.' {
		l.i = start
		return 0, false
	}
	v, err := strconv.ParseInt(string(l.s[start:l.i]), 10, 64)
	if err != nil {
		return 1 << 62, true
	}
	return v, true
}

// checkXrefTables bounds the subsection headers ("start count") of every
// classic cross-reference table.
func checkXrefTables(data []byte, limit int64) error {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("xref"))
		if j < 0 {
			return nil
		}
		i += j + 4
		if i-4 > 0 && !isPDFSpace(data[i-5]) || i < len(data) && !isPDFSpace(data[i]) {
			continue
		}
		l := &pdfLexer{s: data, i: i}
		for {
			start, ok1 := scanInt(l)
			count, ok2 := scanInt(l)
			if !ok1 || !ok2 {
				break
			}
			if start < 0 || count < 0 || start+count > limit {
				return fmt.Errorf("%w: pdf xref subsection %d %d out of range", parseerr.ErrMalformed, start, count)
			}
			for k := int64(0); k < 3*count && l.i < len(data); k++ {
				l.skipSpace()
				for l.i < len(data) && !isPDFSpace(data[l.i]) {
					l.i++
				}
			}
		}
	}
}

// checkObjectStreams inflates every object stream once: the library
// re-reads them on each lookup, loops forever when one ends inside a hex
// string, and holds a whole token in memory, so each must be sound and fit
// in limit bytes.
func checkObjectStreams(data []byte, limit int64) error {
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("/ObjStm"))
		if j < 0 {
			return nil
		}
		i += j + len("/ObjStm")
		if err := checkObjectStream(data, i, limit); err != nil {
			return err
		}
	}
}

func checkObjectStream(data []byte, at int, limit int64) error {
	from := max(0, at-4096)
	dictStart := from + bytes.LastIndex(data[from:at], []byte("obj"))
	k := bytes.Index(data[at:min(len(data), at+8192)], []byte("stream"))
	if dictStart < from || k < 0 {
		return nil
	}
	dict := data[dictStart : at+k]
	start := at + k + len("stream")
	if start < len(data) && data[start] == '\r' {
		start++
	}
	if start < len(data) && data[start] == '\n' {
		start++
	}
	flate, err := objStreamFilter(dict)
	if err != nil {
		return err
	}
	end := len(data)
	if n, ok := pdfDictInt(data, dict, "/Length"); ok && n >= 0 && int64(start)+n <= int64(len(data)) {
		end = start + int(n)
	} else if e := bytes.Index(data[start:], []byte("endstream")); e >= 0 {
		end = start + e
	}
	payload := data[start:end]
	if flate {
		zr, err := zlib.NewReader(bytes.NewReader(payload))
		if err != nil {
			return nil // the library fails on it with an error, not a loop
		}
		var buf bytes.Buffer
		n, err := buf.ReadFrom(io.LimitReader(zr, limit+1))
		if n > limit {
			return fmt.Errorf("%w: pdf object stream inflates past %d bytes", parseerr.ErrTooLarge, limit)
		}
		if err != nil {
			return nil
		}
		payload = buf.Bytes()
	}
	rest := bytes.TrimRight(payload, "0123456789abcdefABCDEF\x00\t\n\f\r ")
	if len(rest) > 0 && rest[len(rest)-1] == '<' {
		return fmt.Errorf("%w: pdf object stream ends inside a hex string", parseerr.ErrMalformed)
	}
	return nil
}

// objStreamFilter accepts no filter or FlateDecode alone, without predictor.
func objStreamFilter(dict []byte) (flate bool, err error) {
	if bytes.Contains(dict, []byte("/DecodeParms")) {
		return false, fmt.Errorf("%w: pdf object stream with DecodeParms", parseerr.ErrUnsupported)
	}
	i := bytes.Index(dict, []byte("/Filter"))
	if i < 0 {
		return false, nil
	}
	l := &pdfLexer{s: dict, i: i + len("/Filter")}
	v, _, _ := l.next()
	switch {
	case v.kind == 'N' && v.str == "FlateDecode":
		return true, nil
	case v.kind == 'a' && len(v.arr) == 1 && v.arr[0].kind == 'N' && v.arr[0].str == "FlateDecode":
		return true, nil
	}
	return false, fmt.Errorf("%w: pdf object stream filter not supported", parseerr.ErrUnsupported)
}

// pdfDictInt reads an integer entry of dict, following one "n g R"
// reference to an "n g obj" in data.
func pdfDictInt(data, dict []byte, key string) (int64, bool) {
	i := bytes.Index(dict, []byte(key))
	if i < 0 {
		return 0, false
	}
	l := &pdfLexer{s: dict, i: i + len(key)}
	n, ok := scanInt(l)
	if !ok {
		return 0, false
	}
	save := l.i
	g, ok := scanInt(l)
	l.skipSpace()
	if !ok || l.i >= len(dict) || dict[l.i] != 'R' {
		l.i = save
		return n, true
	}
	def := []byte(fmt.Sprintf("%d %d obj", n, g))
	for from := 0; ; {
		j := bytes.Index(data[from:], def)
		if j < 0 {
			return 0, false
		}
		at := from + j
		from = at + len(def)
		if at > 0 && !isPDFSpace(data[at-1]) {
			continue
		}
		return scanInt(&pdfLexer{s: data, i: from})
	}
}
