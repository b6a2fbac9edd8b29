// Package ocr reads the text of scanned PDF pages with Debian's command-line
// tools: poppler's pdftoppm renders a page to a grey PNG and tesseract reads
// it. Neither is linked in: Detect finds them, and Hopwise reads scanned PDFs
// only where they are installed (apt-get install tesseract-ocr poppler-utils).
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/graphrag/parse/parseerr"
)

// Install is what to run to enable OCR on Debian.
const Install = "apt-get install tesseract-ocr poppler-utils"

// Tools are the absolute paths of the programs OCR runs and tesseract's
// version; the zero value has none.
type Tools struct {
	Tesseract string `json:"tesseract,omitempty"`
	Pdftoppm  string `json:"pdftoppm,omitempty"`
	Version   string `json:"version,omitempty"` // "tesseract 5.3.0"
}

// Available reports whether both programs were found.
func (t Tools) Available() bool { return t.Tesseract != "" && t.Pdftoppm != "" }

var (
	detectOnce sync.Once
	detected   Tools
	detectErr  error
)

// Detect finds tesseract and pdftoppm on PATH, once per process; the error
// says what is missing and how to install it.
func Detect() (Tools, error) {
	detectOnce.Do(func() { detected, detectErr = detect() })
	return detected, detectErr
}

func detect() (Tools, error) {
	var t Tools
	var missing []string
	var err error
	if t.Tesseract, err = exec.LookPath("tesseract"); err != nil {
		missing = append(missing, "tesseract (package tesseract-ocr)")
	}
	if t.Pdftoppm, err = exec.LookPath("pdftoppm"); err != nil {
		missing = append(missing, "pdftoppm (package poppler-utils)")
	}
	if len(missing) > 0 {
		return Tools{}, fmt.Errorf("%s not found: %s", strings.Join(missing, " and "), Install)
	}
	out, err := exec.Command(t.Tesseract, "--version").CombinedOutput()
	if err != nil {
		return Tools{}, fmt.Errorf("%s --version: %v", t.Tesseract, err)
	}
	t.Version, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	return t, nil
}

// dpi is the resolution pages are rendered at: tesseract reads body text best
// from 200 to 300 dpi, and 200 keeps a page's image near 4 MB.
const dpi = 200

// Pages reads pages 1..n of the PDF held in data, one page at a time, and
// returns the text of each (blank for a page without any). It stops when ctx
// ends, with ctx's error, and fails with parseerr.ErrTooLarge once the text
// passes maxOut bytes.
func Pages(ctx context.Context, t Tools, data []byte, n int, maxOut int64) ([]string, error) {
	if !t.Available() {
		return nil, errors.New("ocr: tesseract and pdftoppm are not available")
	}
	dir, err := os.MkdirTemp("", "hopwise-ocr-")
	if err != nil {
		return nil, fmt.Errorf("ocr: %w", err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, fmt.Errorf("ocr: %w", err)
	}
	var pages []string
	total := int64(0)
	for page := 1; page <= n; page++ {
		text, err := readPage(ctx, t, dir, in, page)
		if err != nil {
			return nil, err
		}
		if total += int64(len(text)); total > maxOut {
			return nil, fmt.Errorf("%w: OCR text passes %d bytes", parseerr.ErrTooLarge, maxOut)
		}
		pages = append(pages, text)
	}
	return pages, nil
}

// readPage renders one page and reads it.
func readPage(ctx context.Context, t Tools, dir, in string, page int) (string, error) {
	png := filepath.Join(dir, "page")
	p := strconv.Itoa(page)
	if _, err := run(ctx, t.Pdftoppm, "-r", strconv.Itoa(dpi), "-gray", "-png", "-f", p, "-l", p, "-singlefile", in, png); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w: ocr: render page %d: %v", parseerr.ErrMalformed, page, err)
	}
	defer os.Remove(png + ".png")
	out, err := run(ctx, t.Tesseract, png+".png", "stdout", "-l", "eng", "--psm", "3")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w: ocr: read page %d: %v", parseerr.ErrMalformed, page, err)
	}
	return strings.ToValidUTF8(string(out), ""), nil
}

// run runs a tool with a small environment (one OpenMP thread: pages are read
// one after another, and the machine is shared) and returns its stdout.
func run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = []string{"OMP_THREAD_LIMIT=1", "PATH=/usr/bin:/bin"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return nil, fmt.Errorf("%s: %v %s", filepath.Base(name), err, msg)
	}
	return stdout.Bytes(), nil
}
