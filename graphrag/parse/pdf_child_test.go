package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPDFThatCrashesTheReaderFailsAlone: a PDF whose object streams
// contain each other makes the library recurse until the Go stack
// overflows, a fatal error no recover catches. Read in a child process it
// fails alone, with a plain-language error, while good PDFs read at the
// same time succeed.
func TestPDFThatCrashesTheReaderFailsAlone(t *testing.T) {
	bad, good := cyclicObjStmPDF(), readTestdata(t, "sample.pdf")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	docs := make([]Parsed, 4)
	for i := range 4 {
		wg.Go(func() {
			data := good
			if i%2 == 0 {
				data = bad
			}
			docs[i], errs[i] = Parse(context.Background(), "Annual report.pdf", bytes.NewReader(data), Limits{}, nil)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if i%2 == 1 {
			if err != nil || !strings.Contains(docs[i].Markdown, "5,921 km") {
				t.Errorf("good PDF next to the bad one: doc = %+v, err = %v", docs[i], err)
			}
			continue
		}
		if !errors.Is(err, ErrMalformed) || errors.Is(err, errInternal) {
			t.Fatalf("err = %v, want ErrMalformed (and no internal error)", err)
		}
		if !reflect.DeepEqual(docs[i], Parsed{}) {
			t.Errorf("doc = %+v, want zero on error", docs[i])
		}
		msg := err.Error()
		if want := "parse Annual report.pdf: malformed file: this PDF could not be read: the PDF reader failed on it"; msg != want {
			t.Errorf("message = %q, want %q", msg, want)
		}
		for _, jargon := range []string{"stack", "goroutine", "runtime", "exit status", "signal", "0x", "child"} {
			if strings.Contains(msg, jargon) {
				t.Errorf("message %q has the technical word %q", msg, jargon)
			}
		}
	}
}

// TestPDFChildMatchesInProcess: through the child process Parse gives the
// same document, or the same error text and sentinels, as in process.
func TestPDFChildMatchesInProcess(t *testing.T) {
	noOCR(t) // the in-process parser never runs OCR: TestScannedPDF covers the child's
	sample := readTestdata(t, "sample.pdf")
	inputs := map[string][]byte{
		"sample":          sample,
		"version 2":       bytes.Replace(sample, []byte("%PDF-1.4"), []byte("%PDF-2.0"), 1),
		"title fallback":  bytes.Replace(sample, []byte("(EU denied boarding rules)"), []byte("(Microsoft Word - ab.docx)"), 1),
		"html in text":    onePagePDF("BT /F1 10 Tf 0 0 Td (<script>a & b</script> \\351t\\351) Tj ET", ""),
		"xref Prev cycle": prevCyclePDF(),
		"form XObject loop": onePagePDF("/X1 Do", "/XObject << /X1 5 0 R >>",
			pdfObject{stream: true, dict: "/Type /XObject /Subtype /Form /Resources << /XObject << /X1 5 0 R >> >>", data: []byte("BT 10 10 Td (loop) Tj ET /X1 Do")}),
		"First by reference into its own stream":  ownStreamRefPDF("/N 1 /First 3 0 R /Length 40"),
		"Length by reference into its own stream": ownStreamRefPDF("/N 1 /First 4 /Length 3 0 R"),
		"object stream filter":                    onePagePDF("BT (x) Tj ET", "", pdfObject{stream: true, dict: "/Type /ObjStm /N 1 /First 4 /Filter /LZWDecode", data: []byte("x")}),
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".pdf") && !crashesInProcess[e.Name()] {
			inputs["bad/"+e.Name()] = readTestdata(t, filepath.Join("bad", e.Name()))
		}
	}
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			lims := []Limits{{}}
			if name == "sample" {
				lims = append(lims, Limits{MaxPages: 1}, Limits{MaxInflated: 300}, Limits{MaxBytes: 100})
			}
			for _, lim := range lims {
				want, wantErr := parseInProcess("doc.pdf", bytes.NewReader(data), lim)
				got, gotErr := Parse(context.Background(), "doc.pdf", bytes.NewReader(data), lim, nil)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("limits %+v: child doc = %+v\nin process = %+v", lim, got, want)
				}
				if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
					t.Errorf("limits %+v: child err = %v, in process = %v", lim, gotErr, wantErr)
				}
				for _, s := range sentinels {
					if errors.Is(gotErr, s.err) != errors.Is(wantErr, s.err) {
						t.Errorf("limits %+v: errors.Is(%v, %v) differs between child and in process", lim, gotErr, s.err)
					}
				}
			}
		})
	}
}

// ownStreamRefPDF has object 3 inside object stream 2, whose dictionary
// (dict) refers to object 3: resolving it reads stream 2 again, without
// end. The read budget stops it before the stack runs out, in process and
// in the child alike.
func ownStreamRefPDF(dict string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	off1 := b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 3 0 R >>\nendobj\n")
	off2 := b.Len()
	fmt.Fprintf(&b, "2 0 obj\n<< /Type /ObjStm %s >>\nstream\n3 0 << /Type /Pages /Kids [] /Count 0 >>\nendstream\nendobj\n", dict)
	xrefAt := b.Len()
	// /W [1 2 1]: type 1 "at offset", type 2 "in object stream, at index".
	entries := []byte{0, 0, 0, 0, 1, 0, byte(off1), 0, 1, 0, byte(off2), 0, 2, 0, 2, 0, 1, 0, byte(xrefAt), 0}
	fmt.Fprintf(&b, "4 0 obj\n<< /Type /XRef /Size 5 /W [1 2 1] /Root 1 0 R /Length %d >>\nstream\n", len(entries))
	b.Write(entries)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return b.Bytes()
}

func TestPDFChildTimeout(t *testing.T) {
	noOCR(t) // the parent's deadline is then the reading's alone
	defer func(d time.Duration) { pdfChildTimeout = d }(pdfChildTimeout)
	pdfChildTimeout = time.Millisecond
	_, err := Parse(context.Background(), "slow.pdf", bytes.NewReader(readTestdata(t, "sample.pdf")), Limits{}, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "this PDF could not be read: it took too long") {
		t.Fatalf("err = %v, want ErrTooLarge saying it took too long", err)
	}
}

// TestPDFChildTimeoutWithOCR: when OCR may run, the parent waits for OCR's time as well, and the child
// itself ends a text read that passes the reading's deadline.
func TestPDFChildTimeoutWithOCR(t *testing.T) {
	if _, err := OCR(); err != nil {
		t.Skipf("OCR tools: %v (.ci/run installs them)", err)
	}
	defer func(d time.Duration) { pdfChildTimeout = d }(pdfChildTimeout)
	pdfChildTimeout = 300 * time.Millisecond
	slow := onePagePDF(strings.Repeat("BT /F1 10 Tf 0 0 Td (hello world text) Tj ET\n", 400000), "")
	start := time.Now()
	_, err := Parse(context.Background(), "slow.pdf", bytes.NewReader(slow), Limits{}, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "this PDF could not be read: it took too long") {
		t.Fatalf("err = %v, want ErrTooLarge saying it took too long", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the slow read ended after %v, want soon after its 300 ms", d)
	}
}

func TestDecodePDFChildResult(t *testing.T) {
	for _, out := range []string{"", "garbage", `{"doc":`, `{"doc":{}} trailing`, "DEBUG: x\n{}"} {
		if _, err := decodePDFChildResult([]byte(out)); err != errPDFReaderFailed {
			t.Errorf("output %q: err = %v, want errPDFReaderFailed", out, err)
		}
	}
	tests := []struct {
		out  string
		want []error
	}{
		{`{"error":"file too large: pdf has more than 1 pages","kinds":["too-large"]}`, []error{ErrTooLarge}},
		{`{"error":"malformed file: internal error: pdf: boom","kinds":["malformed","internal"]}`, []error{ErrMalformed, errInternal}},
		{`{"error":"something new","kinds":["unheard-of"]}`, []error{ErrMalformed}},
	}
	for _, tt := range tests {
		doc, err := decodePDFChildResult([]byte(tt.out))
		if err == nil || !reflect.DeepEqual(doc, Parsed{}) || !strings.Contains(tt.out, err.Error()) {
			t.Errorf("output %s: doc = %+v, err = %v", tt.out, doc, err)
		}
		for _, w := range tt.want {
			if !errors.Is(err, w) {
				t.Errorf("output %s: err %v does not wrap %v", tt.out, err, w)
			}
		}
	}
	doc, err := decodePDFChildResult([]byte(`{"doc":{"Title":"T","Format":"pdf","Markdown":"a <b> & c"}}`))
	if err != nil || !reflect.DeepEqual(doc, Parsed{Title: "T", Format: "pdf", Markdown: "a <b> & c"}) {
		t.Errorf("doc = %+v, err = %v", doc, err)
	}
}

func TestChildOutputBuffers(t *testing.T) {
	c := &cappedBuffer{max: 10}
	for range 3 {
		if n, err := c.Write([]byte("0123456")); n != 7 || err != nil {
			t.Fatalf("Write = %d, %v; want 7, nil", n, err)
		}
	}
	if c.buf.String() != "0123456012" || !c.over {
		t.Errorf("capped buffer kept %q, over = %v", c.buf.String(), c.over)
	}

	// A stack overflow: the reason first, then far more trace than is kept.
	h := &headTailBuffer{max: 1024}
	h.Write([]byte("unknown encoding\nruntime: goroutine stack exceeds 134217728-byte limit\nfatal error: stack overflow\n\nruntime stack:\n"))
	for range 1000 {
		h.Write([]byte("github.com/ledongthuc/pdf.(*Reader).resolve(...)\n\t/x/read.go:755 +0x11c\n"))
	}
	if got := lastErrorLine(h.Bytes()); got != "fatal error: stack overflow" {
		t.Errorf("stack overflow: line = %q", got)
	}
	if n := len(h.Bytes()); n > 2*1024+1 {
		t.Errorf("kept %d bytes, want at most head and tail", n)
	}
	// A panic after much chatter.
	h = &headTailBuffer{max: 1024}
	h.Write(bytes.Repeat([]byte("unknown encoding\n"), 1000))
	h.Write([]byte("panic: runtime error: index out of range [3] with length 2\n\ngoroutine 1 [running]:\n"))
	if got := lastErrorLine(h.Bytes()); got != "panic: runtime error: index out of range [3] with length 2" {
		t.Errorf("panic: line = %q", got)
	}
	if got := lastErrorLine([]byte("pdf child: out of time\n")); got != "pdf child: out of time" {
		t.Errorf("plain: line = %q", got)
	}
}

// BenchmarkParsePDF measures what the child process costs per PDF: run with
// go test -run '^$' -bench ParsePDF ./graphrag/parse/
func BenchmarkParsePDF(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "sample.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name  string
		parse func(string, io.Reader, Limits) (Parsed, error)
	}{
		{"in-process", parseInProcess},
		{"child", func(name string, r io.Reader, lim Limits) (Parsed, error) {
			return Parse(context.Background(), name, r, lim, nil)
		}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bm.parse("sample.pdf", bytes.NewReader(data), Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPDFChildStopsWithItsContext: deleting a document cancels its job; the
// PDF child reading it is killed at once instead of running to its deadline.
func TestPDFChildStopsWithItsContext(t *testing.T) {
	slow := onePagePDF(strings.Repeat("BT /F1 10 Tf 0 0 Td (hello world text) Tj ET\n", 200000), "") // ~1 s to read
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	doc, err := Parse(ctx, "slow.pdf", bytes.NewReader(slow), Limits{}, nil)
	if !errors.Is(err, context.Canceled) || !reflect.DeepEqual(doc, Parsed{}) {
		t.Fatalf("Parse = %d bytes of Markdown, err %v; want context.Canceled", len(doc.Markdown), err)
	}
	if errors.Is(err, ErrMalformed) || errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v blames the file for a cancelled read", err)
	}
	// a child left running would finish the PDF and Parse return it (the check above); this bound leaves
	// room for reading the PDF here and starting the child on two busy cores (1.5 s in CI at a load of 17)
	if d := time.Since(start); d > 50*time.Millisecond+3*time.Second {
		t.Errorf("Parse returned %v after it began, want soon after the cancel at 50ms", d)
	}
}

// TestPDFsReadInProcessWithoutAChildEntryPoint: an executable that never
// called ServePDFChild is not started again (it would run in full); Parse
// reads the PDF in process and says so in the injected log.
func TestPDFsReadInProcessWithoutAChildEntryPoint(t *testing.T) {
	servesPDFChildren.Store(false)
	defer servesPDFChildren.Store(true)
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	doc, err := Parse(context.Background(), "sample.pdf", bytes.NewReader(readTestdata(t, "sample.pdf")), Limits{}, log)
	if err != nil || !strings.Contains(doc.Markdown, "5,921 km") {
		t.Fatalf("doc = %+v, err = %v", doc, err)
	}
	if !strings.Contains(logged.String(), "does not serve PDF children") {
		t.Errorf("log = %q, want the warning that the PDF was read in process", logged.String())
	}
}
