package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/llm/llmtest"
)

// Issue 21, item 5: a 0-byte store file was migrated as a new store and the status said OK. The binary
// now refuses to start on it, saying why and what to do, leaves the file as it was, and with
// HOPWISE_STORE_FORCE the status lists the store file, its integrity and the disk space, the file failing.
func TestEmptyStoreFileStopsTheStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	data := t.TempDir()
	db := filepath.Join(data, "hopwise.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := hopwiseCmd(context.Background(), bin, data, model.URL(), "status").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("status on an empty file: %v, want a failure\n%s", err, out)
	}
	for _, want := range []string{"empty (0 bytes)", "nothing in the file was changed", "HOPWISE_STORE_FORCE"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the refusal does not say %q:\n%s", want, out)
		}
	}
	if st, _ := os.Stat(db); st.Size() != 0 {
		t.Errorf("the refused file now has %d bytes", st.Size())
	}
	cmd := hopwiseCmd(context.Background(), bin, data, model.URL(), "status")
	cmd.Env = append(cmd.Env, "HOPWISE_STORE_FORCE=true")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("forced status: %v\n%s", err, out)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		for _, name := range []string{"store file", "store integrity", "disk space"} {
			if strings.HasPrefix(l, name+" ") {
				lines[name] = l
			}
		}
	}
	if !strings.Contains(lines["store file"], "FAILING") || !strings.Contains(lines["store file"], "empty") {
		t.Errorf("store file line: %q\n%s", lines["store file"], out)
	}
	if !strings.Contains(lines["disk space"], "free on the disk") {
		t.Errorf("disk space line: %q", lines["disk space"])
	}
	if lines["store integrity"] == "" {
		t.Errorf("no integrity line:\n%s", out)
	}
}
