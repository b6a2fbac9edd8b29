package graphrag_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// Deleting a document stops the PDF child reading it (the job's context reaches parse.Parse), so the
// delete answers at once instead of waiting for the whole read, up to the child's minute.
func TestDeleteDuringPDFParseDoesNotWait(t *testing.T) {
	env := newEnv(t)
	progress, stop := env.ingester.Subscribe()
	defer stop()
	doc, _, err := env.ingester.Submit(context.Background(), "slow.pdf", strings.NewReader(slowPDF(400000)))
	if err != nil {
		t.Fatal(err)
	}
	for p := range progress {
		if p.DocID == doc.ID && p.Status == graphrag.StatusParsing {
			break
		}
	}
	// Past reading the source (a cancelled read of it would end the job before any PDF child): the
	// child now reads the PDF for seconds.
	time.Sleep(500 * time.Millisecond)
	start := time.Now()
	if err := env.ingester.Delete(context.Background(), doc.ID); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Delete took %v while the PDF was being read, want well under a second", d)
	}
	if s := env.stats(); s.Documents != 0 || s.Chunks != 0 {
		t.Errorf("after delete during parse: %+v, want empty", s)
	}
}

// slowPDF is a valid one-page PDF whose content stream draws the same line n times, 45 bytes each: 400,000
// lines take the PDF reader seconds.
func slowPDF(n int) string {
	content := strings.Repeat("BT /F1 10 Tf 0 0 Td (hello world text) Tj ET\n", n)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
	var b strings.Builder
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.String()
}
