package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// onePagePDF is a valid one-page PDF with the given content stream and
// extra objects (numbered from 5).
func onePagePDF(content string, pageExtra string, extra ...pdfObject) []byte {
	objs := []pdfObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> " + pageExtra + " >> /Contents 4 0 R >>"},
		{stream: true, data: []byte(content)},
	}
	return buildPDF(append(objs, extra...), "")
}

// prevCyclePDF adds an xref section whose /Prev points back at itself.
func prevCyclePDF() []byte {
	data := onePagePDF("BT (x) Tj ET", "")
	var b bytes.Buffer
	b.Write(data)
	at := b.Len()
	fmt.Fprintf(&b, "xref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 5 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", at, at)
	return b.Bytes()
}

func TestPDFGuards(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error  // nil: parses
		text string // expected in the Markdown when want is nil
	}{
		{name: "xref Prev cycle", data: prevCyclePDF(), want: ErrTooLarge},
		{name: "object count by reference", data: onePagePDF("BT (x) Tj ET", "/Extra << /N 9 0 R >>"), want: ErrMalformed},
		{name: "huge predictor columns", data: onePagePDF("BT (x) Tj ET", "/P << /Columns 99999999 >>"), want: ErrMalformed},
		{name: "huge xref subsection", data: bytes.Replace(onePagePDF("BT (x) Tj ET", ""), []byte("xref\n0 5\n"), []byte("xref\n0 99999999\n"), 1), want: ErrMalformed},
		{name: "huge W entry", data: onePagePDF("BT (x) Tj ET", "/Q << /W [1 999 1] >>"), want: ErrMalformed},
		{name: "object stream with a filter the check cannot read", data: onePagePDF("BT (x) Tj ET", "", pdfObject{stream: true, dict: "/Type /ObjStm /N 1 /First 4 /Filter /LZWDecode", data: []byte("x")}), want: ErrUnsupported},
		{name: "self-invoking form XObject", data: onePagePDF("/X1 Do", "/XObject << /X1 5 0 R >>",
			pdfObject{stream: true, dict: "/Type /XObject /Subtype /Form /Resources << /XObject << /X1 5 0 R >> >>", data: []byte("BT 10 10 Td (loop) Tj ET /X1 Do")}), text: "loop"},
		{name: "unterminated hex string", data: onePagePDF("BT (ok) Tj <4142", ""), text: "ok"},
		{name: "unterminated literal and array", data: onePagePDF("BT (ok) Tj [(a) (b", ""), text: "ok"},
		{name: "unterminated dictionary", data: onePagePDF("BT (ok) Tj /P << /A [1 2 <<", ""), text: "ok"},
		{name: "inline image data skipped", data: onePagePDF("BI /W 2 /H 1 ID \x00(\xff) Tj EI BT (after) Tj ET", ""), text: "after"},
		{name: "deep nesting", data: onePagePDF(strings.Repeat("[<<", 100000)+strings.Repeat(">>]", 100000)+" BT (deep) Tj ET", ""), text: "deep"},
		{name: "operators without operands", data: onePagePDF("BT Tf Td TJ Tj ' \" Tm cm Do T* Q Q q ET BT (fine) Tj ET", ""), text: "fine"},
		{name: "NaN and huge numbers", data: onePagePDF("1e308 1e308 1e308 1e308 0 0 cm BT /F1 1e308 Tf (big) Tj ET", ""), text: "big"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			doc, err := Parse(context.Background(), "g.pdf", bytes.NewReader(tt.data), Limits{}, nil)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if errors.Is(err, errInternal) {
				t.Fatalf("panic recovered: %v", err)
			}
			if tt.want != nil {
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(doc.Markdown, tt.text) {
				t.Errorf("markdown %q lacks %q", doc.Markdown, tt.text)
			}
		})
	}
}

func TestPDFContentLayout(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"kerning gap is a space", "BT /F1 10 Tf 0 0 Td [(Delhi) -400 (Munich)] TJ ET", "Delhi Munich"},
		{"kerning inside a word is not", "BT /F1 10 Tf 0 0 Td [(Mu) -20 (nich)] TJ ET", "Munich"},
		{"separate strings on one line", "BT /F1 10 Tf 0 0 Td (one) Tj 100 0 Td (two) Tj ET", "one two"},
		{"line break", "BT /F1 10 Tf 12 TL 0 100 Td (first) Tj T* (second) Tj ET", "first\nsecond"},
		{"paragraph gap", "BT /F1 10 Tf 0 100 Td (a) Tj 0 -12 Td (b) Tj 0 -40 Td (c) Tj ET", "a\nb\n\nc"},
		{"fake bold drawn twice", "BT /F1 10 Tf 0 0 Td (Bold) Tj ET BT /F1 10 Tf 0.3 0 Td (Bold) Tj ET", "Bold"},
		{"bullets become list items", "BT /F1 10 Tf 12 TL 0 100 Td (\\225 one) Tj T* (\\225 two) Tj ET", "- one\n- two"},
		{"escaped structure", "BT /F1 10 Tf 0 0 Td (# not a heading) Tj ET", "\\# not a heading"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(context.Background(), "l.pdf", bytes.NewReader(onePagePDF(tt.content, "")), Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Markdown != tt.want {
				t.Errorf("markdown = %q, want %q", doc.Markdown, tt.want)
			}
		})
	}
}
