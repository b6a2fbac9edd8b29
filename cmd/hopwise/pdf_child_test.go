package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryServesAsPDFChild: the hopwise binary is its own PDF child (parse.ServePDFChild in main):
// started with the child's hidden argument it reads the PDF on stdin and answers with JSON on stdout,
// without starting a command or reading any setting.
func TestBinaryServesAsPDFChild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	pdf, err := os.ReadFile("../../graphrag/parse/testdata/sample.pdf")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "internal-parse-pdf", `{"Limits":{"MaxBytes":1000000,"MaxInflated":10000000,"MaxPages":10}}`)
	cmd.Stdin = bytes.NewReader(pdf)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	var res struct {
		Doc   struct{ Format, Markdown string }
		Error string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("child output %q: %v", out, err)
	}
	if res.Error != "" || res.Doc.Format != "pdf" || !strings.Contains(res.Doc.Markdown, "5,921 km") {
		t.Errorf("child answered %+v, want the sample PDF's Markdown", res)
	}
}
