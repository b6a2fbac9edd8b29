package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestIngestReportsEachFileAndFailsAlone: a folder with one broken file among good ones ingests the good
// ones, names the broken one with its reason, and exits non-zero.
func TestIngestReportsEachFileAndFailsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	dir := t.TempDir()
	for name, content := range map[string]string{
		"tips.md":    "# Tips\n\nThe S-Bahn lines S1 and S8 connect Munich Airport with the central station.\n",
		"notes.txt":  "Lena Vogt founded Nexa AI in Munich.\n",
		"broken.pdf": "%PDF-1.4 not really a pdf",
		"photo.png":  "\x89PNG\r\n\x1a\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := hopwiseCmd(context.Background(), bin, t.TempDir(), model.URL(), "ingest", dir).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"done  " + filepath.Join(dir, "notes.txt"), "done  " + filepath.Join(dir, "tips.md"),
		"FAIL  " + filepath.Join(dir, "broken.pdf"), "skip  " + filepath.Join(dir, "photo.png"), "1 of 3 file(s) or page(s) failed"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
