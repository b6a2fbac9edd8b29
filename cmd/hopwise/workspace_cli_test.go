package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// The command line acts in the workspace --workspace (HOPWISE_WORKSPACE) names: what it ingests there,
// its docs and its searches are that workspace's alone, the default workspace keeps its own, and a
// workspace nobody created is a usage error (exit 2) that creates nothing.
func TestWorkspaceFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	ctx := context.Background()
	data := t.TempDir()
	// An admin created the workspace hr (the Admin page writes the same record).
	st, err := sqlite.Open(ctx, filepath.Join(data, "hopwise.db"), sqlite.Options{EmbedDim: 64, EmbedModel: "test-embed"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutWorkspace(ctx, auth.Workspace{ID: "hr", Name: "Human resources"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	hrDir, pubDir := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(hrDir, "salaries.md"), []byte("# Salaries\n\nQorvexa Holdings pays the HR staff monthly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pubDir, "handbook.md"), []byte("# Handbook\n\nLumen Corp publishes its travel rules yearly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		t.Helper()
		out, err := hopwiseCmd(ctx, bin, data, model.URL(), args...).CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("hopwise %s: %v", strings.Join(args, " "), err)
		}
		return string(out), 0
	}
	if out, code := run("ingest", "--workspace", "hr", hrDir); code != 0 {
		t.Fatalf("ingest into hr: exit %d\n%s", code, out)
	}
	if out, code := run("ingest", pubDir); code != 0 {
		t.Fatalf("ingest into default: exit %d\n%s", code, out)
	}
	names := func(args ...string) []string {
		t.Helper()
		cmd := hopwiseCmd(ctx, bin, data, model.URL(), append([]string{"docs", "--json"}, args...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("docs %v: %v", args, err)
		}
		var docs []graphrag.Document
		if err := json.Unmarshal(out, &docs); err != nil {
			t.Fatalf("docs %v: %v\n%s", args, err, out)
		}
		var out2 []string
		for _, d := range docs {
			out2 = append(out2, d.Name)
		}
		return out2
	}
	if got := names("--workspace", "hr"); len(got) != 1 || got[0] != "salaries.md" {
		t.Errorf("docs --workspace hr = %v, want [salaries.md]", got)
	}
	if got := names(); len(got) != 1 || got[0] != "handbook.md" {
		t.Errorf("docs = %v, want [handbook.md] (the default workspace)", got)
	}
	env := hopwiseCmd(ctx, bin, data, model.URL(), "docs", "--json")
	env.Env = append(env.Env, "HOPWISE_WORKSPACE=hr")
	if out, err := env.Output(); err != nil || !strings.Contains(string(out), "salaries.md") || strings.Contains(string(out), "handbook.md") {
		t.Errorf("HOPWISE_WORKSPACE=hr docs = %s, %v; want hr's document alone", out, err)
	}
	if out, code := run("search", "--workspace", "hr", "Qorvexa"); code != 0 || !strings.Contains(out, "Qorvexa") {
		t.Errorf("search --workspace hr Qorvexa: exit %d\n%s\nwant hr's passage", code, out)
	}
	if out, code := run("search", "Qorvexa"); code != 0 || strings.Contains(out, "Qorvexa Holdings") {
		t.Errorf("search Qorvexa in default: exit %d\n%s\nwant none of hr's passages", code, out)
	}
	out, code := run("docs", "--workspace", "nope")
	if code != 2 || !strings.Contains(out, `no workspace "nope"`) {
		t.Errorf("docs --workspace nope: exit %d\n%s\nwant exit 2 naming the workspace", code, out)
	}
	if _, err := os.Stat(filepath.Join(data, "hopwise.workspaces", "nope.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a mistyped workspace made a file: %v", err)
	}
}
