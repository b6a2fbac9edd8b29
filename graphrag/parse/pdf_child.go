package parse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hopwise/hopwise/graphrag/parse/ocr"
)

// The PDF library can recurse without bound on a crafted file (for one,
// object streams that are each inside the other: testdata/bad/
// cyclic-object-streams.pdf), and the guards in pdf/guard.go cannot foresee
// every such path. A Go stack overflow is a fatal error that no recover
// catches, so in the server's process one uploaded PDF would end
// every request and job. Parse therefore reads each PDF in a child process:
// the running executable started again as `<exe> internal-parse-pdf <job>`.
// ServePDFChild, called first thing in main (or a test binary's TestMain),
// notices that argument, parses the PDF on stdin in process and writes a
// pdfChildResult as JSON to stdout. Whatever ends the child (a crash, running
// out of memory, the deadline, the caller's context) fails that one file; the
// server goes on.

const (
	// pdfChildArg, as the first argument, makes ServePDFChild a PDF child; the
	// second is the child's pdfChildJob, as JSON.
	pdfChildArg = "internal-parse-pdf"

	// pdfChildMaxStack caps each goroutine's stack in the child: a runaway
	// recursion stops at 64 MiB instead of Go's default 1 GiB, sooner and
	// with less memory. Real files need a small fraction of it.
	pdfChildMaxStack = 64 << 20
	// pdfChildStderr is how much of the start and of the end of the
	// child's stderr is kept, to find the line that says why it failed.
	pdfChildStderr = 8 << 10
)

// servesPDFChildren records that ServePDFChild was called: only then may this
// executable be started as a child. Started without it, it would run again in
// full (a test binary would run its tests, each starting more children).
var servesPDFChildren atomic.Bool

// ServePDFChild is the PDF child's entry point. When this process was
// started as a child, it reads the PDF on stdin, writes the result to stdout
// and exits; otherwise it records that this executable serves children and
// returns. Call it first thing in main, and in TestMain of tests that parse
// PDFs; in a binary that never called it, Parse reads PDFs in process and
// logs a warning.
func ServePDFChild() {
	if len(os.Args) == 3 && os.Args[1] == pdfChildArg {
		os.Exit(runPDFChild(os.Stdin, os.Args[2]))
	}
	servesPDFChildren.Store(true)
}

// pdfChildTimeout is how long a child may take over one PDF. A variable so
// that tests can shorten it.
var pdfChildTimeout = 60 * time.Second

// pdfChildJob is what the parent tells the child besides the PDF bytes.
type pdfChildJob struct {
	Limits  Limits
	Timeout time.Duration
	OCR     *ocr.Tools // nil: scanned PDFs are not read
	// OCRTimeout is how long OCR may take on top of Timeout, which bounds reading the text.
	OCRTimeout time.Duration
}

// pdfChildResult is the child's answer: the document, or the error's text
// and the names of the sentinel errors it wraps.
type pdfChildResult struct {
	Doc   Parsed   `json:"doc"`
	Error string   `json:"error,omitempty"`
	Kinds []string `json:"kinds,omitempty"`
}

// sentinels names the errors a child's error can wrap, so that errors.Is
// gives the same answer in the parent.
var sentinels = []struct {
	name string
	err  error
}{
	{"unsupported", ErrUnsupported},
	{"too-large", ErrTooLarge},
	{"empty", ErrEmpty},
	{"binary", ErrBinary},
	{"malformed", ErrMalformed},
	{"internal", errInternal},
}

// runPDFChild is the child's whole life: it returns the exit code.
func runPDFChild(in io.Reader, job string) int {
	// The library prints debugging lines with fmt.Printf; they must not
	// mix with the result, so stdout is kept for the result alone.
	out := os.Stdout
	os.Stdout = os.Stderr
	var j pdfChildJob
	if err := json.Unmarshal([]byte(job), &j); err != nil {
		fmt.Fprintf(os.Stderr, "pdf child: bad job %q: %v\n", job, err)
		return 2
	}
	if j.Timeout > 0 {
		outOfTime := func() {
			fmt.Fprintln(os.Stderr, "pdf child: out of time")
			os.Exit(3)
		}
		// Reading the text must end within Timeout. The parent waits for
		// OCR's time on top, so the child ends a read that passes it; the
		// second timer ends a child whose parent died first.
		time.AfterFunc(j.Timeout, func() {
			if !ocrRunning.Load() {
				outOfTime()
			}
		})
		time.AfterFunc(j.Timeout+j.OCRTimeout+5*time.Second, outOfTime)
	}
	lim := j.Limits.withDefaults()
	debug.SetMaxStack(pdfChildMaxStack)
	// A soft limit: the garbage collector works harder near it, nothing
	// fails at it. A child that still grows runs into the deadline or the
	// system's out-of-memory killer, either of which ends only the child.
	debug.SetMemoryLimit(2*lim.MaxBytes + 4*lim.MaxInflated + 256<<20)
	var res pdfChildResult
	doc, err := childPDFText(in, j, lim)
	if err != nil {
		res.Error = err.Error()
		for _, s := range sentinels {
			if errors.Is(err, s.err) {
				res.Kinds = append(res.Kinds, s.name)
			}
		}
	} else {
		res.Doc = doc
	}
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		fmt.Fprintf(os.Stderr, "pdf child: write result: %v\n", err)
		return 2
	}
	return 0
}

// childPDFText is what the child does with the PDF on stdin: its text, or its
// pages through OCR within the job's OCR time when it has none and the job
// names the tools.
func childPDFText(in io.Reader, j pdfChildJob, lim Limits) (Parsed, error) {
	data, err := readPDF(in, lim)
	if err != nil {
		return Parsed{}, err
	}
	return pdfText(data, lim, j.OCR, j.OCRTimeout)
}

// parsePDFInChild is the PDF parser Parse uses: it reads the PDF here and
// extracts its text in a child process, which ends with ctx.
func parsePDFInChild(ctx context.Context, name string, r io.Reader, lim Limits, log *slog.Logger) (Parsed, error) {
	data, err := readPDF(r, lim)
	if err != nil {
		return Parsed{}, err
	}
	if !servesPDFChildren.Load() {
		log.Warn("parse: this executable does not serve PDF children (no parse.ServePDFChild in main); reading the PDF in this process", "file", baseName(name))
		return pdfText(data, lim, ocrTools(), ocrTimeout)
	}
	exe, err := os.Executable()
	if err != nil {
		log.Warn("parse: cannot find the executable to read a PDF in a child process; reading it in this process", "file", baseName(name), "err", err)
		return pdfText(data, lim, ocrTools(), ocrTimeout)
	}
	j := pdfChildJob{Limits: lim, Timeout: pdfChildTimeout, OCR: ocrTools()}
	if j.OCR != nil {
		j.OCRTimeout = ocrTimeout
	}
	job, err := json.Marshal(j)
	if err != nil {
		return Parsed{}, fmt.Errorf("%w: %w: pdf child job: %v", ErrMalformed, errInternal, err)
	}
	caller := ctx
	ctx, cancel := context.WithTimeout(ctx, pdfChildTimeout+j.OCRTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, pdfChildArg, string(job))
	// A small, clean environment. GORACE only matters to binaries built
	// with -race (tests): their exit would sleep a second by default.
	cmd.Env = []string{"GOTRACEBACK=none", "GORACE=atexit_sleep_ms=0"}
	cmd.Stdin = bytes.NewReader(data)
	stdout := &cappedBuffer{max: pdfChildMaxOutput(lim)}
	stderr := &headTailBuffer{max: pdfChildStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		if caller.Err() != nil {
			return Parsed{}, caller.Err()
		}
		if ctx.Err() != nil {
			return Parsed{}, pdfTimeoutError()
		}
		log.Warn("parse: cannot start a child process to read a PDF; reading it in this process", "file", baseName(name), "err", err)
		return pdfText(data, lim, ocrTools(), ocrTimeout)
	}
	err = cmd.Wait()
	elapsed := time.Since(start)
	switch {
	case err != nil && caller.Err() != nil:
		return Parsed{}, caller.Err() // the caller stopped: not the file's fault
	case err != nil && (ctx.Err() != nil || elapsed >= pdfChildTimeout):
		log.Warn("parse: the PDF reader ran out of time", "file", baseName(name), "timeout", pdfChildTimeout)
		return Parsed{}, pdfTimeoutError()
	case err != nil:
		log.Warn("parse: the PDF reader process failed", "file", baseName(name), "exit", err, "elapsed", elapsed, "stderr", lastErrorLine(stderr.Bytes()))
		return Parsed{}, errPDFReaderFailed
	case stdout.over:
		log.Warn("parse: the PDF reader's output passes its cap", "file", baseName(name), "cap", stdout.max)
		return Parsed{}, errPDFReaderFailed
	}
	doc, err := decodePDFChildResult(stdout.buf.Bytes())
	if errors.Is(err, errPDFReaderFailed) {
		log.Warn("parse: the PDF reader's output is unreadable", "file", baseName(name), "stderr", lastErrorLine(stderr.Bytes()))
	}
	return doc, err
}

// errPDFReaderFailed is the error for a child that crashed or answered
// nonsense; Parse adds the file name.
var errPDFReaderFailed = fmt.Errorf("%w: this PDF could not be read: the PDF reader failed on it", ErrMalformed)

func pdfTimeoutError() error {
	d := pdfChildTimeout.String()
	if pdfChildTimeout >= time.Second {
		d = fmt.Sprintf("%d seconds", int(pdfChildTimeout.Seconds()))
	}
	return fmt.Errorf("%w: this PDF could not be read: it took too long (more than %s)", ErrTooLarge, d)
}

// pdfChildMaxOutput bounds the child's JSON: the Markdown is at most
// lim.MaxInflated bytes and JSON escaping at most sixfolds a byte.
func pdfChildMaxOutput(lim Limits) int64 { return 6*lim.MaxInflated + 1<<20 }

// decodePDFChildResult turns the child's output back into what parsePDF
// returned.
func decodePDFChildResult(out []byte) (Parsed, error) {
	var res pdfChildResult
	if err := json.Unmarshal(out, &res); err != nil {
		return Parsed{}, errPDFReaderFailed
	}
	if res.Error == "" {
		return res.Doc, nil
	}
	e := &pdfChildError{msg: res.Error}
	for _, name := range res.Kinds {
		for _, s := range sentinels {
			if s.name == name {
				e.kinds = append(e.kinds, s.err)
			}
		}
	}
	if len(e.kinds) == 0 {
		e.kinds = []error{ErrMalformed} // Parse returns only sentinel errors
	}
	return Parsed{}, e
}

// pdfChildError is an error the child reported: its text, and the
// sentinels it wrapped.
type pdfChildError struct {
	msg   string
	kinds []error
}

func (e *pdfChildError) Error() string   { return e.msg }
func (e *pdfChildError) Unwrap() []error { return e.kinds }

// lastErrorLine picks the line of a Go program's stderr that says why it
// ended: the last "fatal error:" or "panic:" line, else the last line.
func lastErrorLine(stderr []byte) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "fatal error:") || strings.HasPrefix(lines[i], "panic:") {
			return lines[i]
		}
	}
	return lines[len(lines)-1]
}

// cappedBuffer keeps the first max bytes written to it and notes whether
// more came. It never fails a write, so the child is never blocked.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int64
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - int64(c.buf.Len())
	if int64(len(p)) > room {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return c.buf.Write(p)
}

// headTailBuffer keeps the first and the last max bytes written to it: a
// fatal error's reason comes before its stack traces, a panic's after the
// library's chatter.
type headTailBuffer struct {
	head, tail []byte
	max        int
}

func (b *headTailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if k := min(len(p), b.max-len(b.head)); k > 0 {
		b.head, p = append(b.head, p[:k]...), p[k:]
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.max {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.max:]...)
	}
	return n, nil
}

// Bytes is the head, then "\n" and the tail when something was written
// after the head.
func (b *headTailBuffer) Bytes() []byte {
	tail := b.tail[max(0, len(b.tail)-b.max):]
	if len(tail) == 0 {
		return b.head
	}
	return append(append(append([]byte(nil), b.head...), '\n'), tail...)
}
