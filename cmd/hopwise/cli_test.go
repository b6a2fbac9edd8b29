package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
)

// testVersion is the version the CLI tests' binary is built with.
const testVersion = "v0.0.0-clitest"

var cliBinary struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// versionedHopwise builds the binary once for the CLI tests, with its version set as `make build` does.
func versionedHopwise(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	cliBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "hopwise-cli-")
		if err != nil {
			cliBinary.err = err
			return
		}
		cliBinary.path = filepath.Join(dir, "hopwise")
		cliBinary.out, cliBinary.err = exec.Command("go", "build", "-ldflags", "-X main.version="+testVersion,
			"-o", cliBinary.path, ".").CombinedOutput()
	})
	if cliBinary.err != nil {
		t.Fatalf("go build: %v\n%s", cliBinary.err, cliBinary.out)
	}
	return cliBinary.path
}

// cleanEnv is the test process's environment without any Hopwise setting, plus extra.
func cleanEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if regexp.MustCompile(`^(HOPWISE_|LLM_|EMBED_|OPENAI_|NEO4J_|AGENT_|WEB_SEARCH|TAVILY_|RERANK_)`).MatchString(name) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, extra...)
}

// hopwiseIn runs the binary in dir with a clean environment plus env; it returns stdout, stderr and the
// exit code.
func hopwiseIn(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, cleanEnv(env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("hopwise %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// scriptedEnv points the binary at a scripted model and a data directory of its own.
func scriptedEnv(t *testing.T) (model *llmtest.Server, data string, env []string) {
	model = llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	data = t.TempDir()
	return model, data, []string{"HOPWISE_DATA_DIR=" + data, "LLM_BASE_URL=" + model.URL(), "LLM_MODEL=test",
		"EMBED_MODEL=test-embed", "EMBED_DIM=64", "LLM_RETRIES=0"}
}

func mustRun(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	out, errOut, code := hopwiseIn(t, bin, t.TempDir(), env, args...)
	if code != 0 {
		t.Fatalf("hopwise %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// TestFlagsAfterArguments: flags may follow the arguments (`hopwise search hello --json`), and
// `ingest --samples` ingests the documents the binary carries; no log line reaches stderr at the default
// level.
func TestFlagsAfterArguments(t *testing.T) {
	bin := versionedHopwise(t)
	_, _, env := scriptedEnv(t)
	out := mustRun(t, bin, env, "ingest", "--samples")
	if n := strings.Count(out, "done  sample:"); n != len(samples.List()) {
		t.Fatalf("%d samples reported done, want %d:\n%s", n, len(samples.List()), out)
	}
	out, errOut, code := hopwiseIn(t, bin, t.TempDir(), env, "search", "TRV-117", "business", "class", "--json", "-k", "2")
	if code != 0 {
		t.Fatalf("search: exit %d\n%s", code, errOut)
	}
	var res struct {
		Chunks []struct{ Document, Text string } `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search ... --json did not print JSON (the flag was read as a search word?): %v\n%s", err, out)
	}
	if len(res.Chunks) != 2 || res.Chunks[0].Document != "nexa-ai-employee-handbook.md" {
		t.Errorf("search TRV-117 -k 2: %+v, want the handbook first, 2 chunks", res.Chunks)
	}
	if errOut != "" {
		t.Errorf("stderr holds output at the default log level:\n%s", errOut)
	}
}

// helpCommands reads the command list of `hopwise --help`: name -> summary.
func helpCommands(t *testing.T, help string) map[string]string {
	t.Helper()
	_, list, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		t.Fatalf("no command list in the help:\n%s", help)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	out := map[string]string{}
	for _, line := range strings.Split(list, "\n") {
		name, summary, _ := strings.Cut(strings.TrimSpace(line), " ")
		out[name] = strings.TrimSpace(summary)
	}
	return out
}

// TestCommandHelp: every command has its own help with examples, offers only the settings it uses, and no
// secret as a flag.
func TestCommandHelp(t *testing.T) {
	bin := versionedHopwise(t)
	root := mustRun(t, bin, nil, "--help")
	commands := helpCommands(t, root)
	for _, want := range []string{"serve", "ask", "ingest", "docs", "show", "delete", "search", "status", "eval", "version", "completion"} {
		if commands[want] == "" {
			t.Errorf("hopwise --help does not list %s", want)
		}
	}
	secrets := []string{"--llm-api-key", "--embed-api-key", "--neo4j-password", "--web-search-api-key", "--rerank-api-key", "--secret "}
	for name := range commands {
		if name == "help" || name == "completion" {
			continue
		}
		help := mustRun(t, bin, nil, name, "--help")
		if !strings.Contains(help, "Usage:") || !strings.Contains(help, "Examples:") {
			t.Errorf("hopwise %s --help has no usage or no examples:\n%s", name, help)
		}
		for _, s := range secrets {
			if strings.Contains(help, s) {
				t.Errorf("hopwise %s --help offers the secret %s as a flag", name, strings.TrimSpace(s))
			}
		}
	}
	tests := []struct {
		command     string
		has, hasNot []string
	}{
		{"delete", []string{"--data-dir", "--neo4j-uri", "--log-level"}, []string{"--addr", "--ask-per-minute", "--llm-model", "--embed-dim", "--max-loops"}},
		{"docs", []string{"--json", "--data-dir"}, []string{"--llm-base-url", "--addr"}},
		{"search", []string{"--json", "--embed-model", "--data-dir"}, []string{"--addr", "--max-loops"}},
		{"serve", []string{"--addr", "--ask-per-minute", "--llm-model", "--max-loops", "--data-dir"}, nil},
		{"health", []string{"--addr"}, []string{"--data-dir", "--llm-model"}},
	}
	for _, tc := range tests {
		help := mustRun(t, bin, nil, tc.command, "--help")
		for _, f := range tc.has {
			if !strings.Contains(help, f+" ") {
				t.Errorf("hopwise %s --help lacks %s", tc.command, f)
			}
		}
		for _, f := range tc.hasNot {
			if strings.Contains(help, f+" ") {
				t.Errorf("hopwise %s --help offers %s, a setting it does not use", tc.command, f)
			}
		}
	}
	if !strings.Contains(mustRun(t, bin, nil, "delete", "--help"), `(default "warn")`) {
		t.Error("the log level of delete is not warn by default")
	}
	if !strings.Contains(mustRun(t, bin, nil, "serve", "--help"), `(default "info")`) {
		t.Error("the log level of serve is not info by default")
	}
}

// TestREADMECommandTable: the README's table of commands is `hopwise --help`'s list, summary for summary.
func TestREADMECommandTable(t *testing.T) {
	bin := versionedHopwise(t)
	commands := helpCommands(t, mustRun(t, bin, nil, "--help"))
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "| command | what it does |")
	if !ok {
		t.Fatal("README.md has no command table")
	}
	section = strings.TrimPrefix(section, "\n")
	table := map[string]string{}
	row := regexp.MustCompile("^\\| `([a-z]+)` \\| (.+) \\|$")
	sc := bufio.NewScanner(strings.NewReader(section))
	sc.Scan() // the separator row
	for sc.Scan() && strings.HasPrefix(sc.Text(), "|") {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Errorf("README row %q is not | `command` | summary |", sc.Text())
			continue
		}
		table[m[1]] = m[2]
	}
	for name, summary := range commands {
		if table[name] != summary {
			t.Errorf("README says %s is %q, hopwise --help says %q", name, table[name], summary)
		}
	}
	for name := range table {
		if _, ok := commands[name]; !ok {
			t.Errorf("README lists %s, which hopwise --help does not", name)
		}
	}
}

// TestVersion: `hopwise version` and `--version` print the version the binary was built with.
func TestVersion(t *testing.T) {
	bin := versionedHopwise(t)
	if out := mustRun(t, bin, nil, "version"); !strings.HasPrefix(out, "hopwise "+testVersion+" (go") {
		t.Errorf("hopwise version = %q", out)
	}
	if out := mustRun(t, bin, nil, "--version"); out != "hopwise "+testVersion+"\n" {
		t.Errorf("hopwise --version = %q", out)
	}
}

// TestUsageErrorsExitTwo: an unknown command or flag, or missing arguments, exit 2 with a hint on stderr
// and nothing on stdout.
func TestUsageErrorsExitTwo(t *testing.T) {
	bin := versionedHopwise(t)
	for _, args := range [][]string{{"bogus"}, {"docs", "--bogus"}, {"delete"}, {"ingest"}, {"docs", "extra"}} {
		out, errOut, code := hopwiseIn(t, bin, t.TempDir(), []string{"HOPWISE_DATA_DIR=" + t.TempDir()}, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "--help") {
			t.Errorf("hopwise %v: exit %d, stdout %q, stderr %q; want 2, nothing, a pointer to --help", args, code, out, errOut)
		}
	}
}

// TestDeleteByName: documents are deleted by file name as `docs` shows them; a name two documents carry is
// refused with both IDs and nothing is deleted.
func TestDeleteByName(t *testing.T) {
	bin := versionedHopwise(t)
	_, data, env := scriptedEnv(t)
	a, b := filepath.Join(t.TempDir(), "notes.txt"), filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(a, []byte("Lena Vogt met Arjun Mehta in Munich.\n"), 0o644)
	os.WriteFile(b, []byte("Priya Raman works in Lisbon.\n"), 0o644)
	mustRun(t, bin, env, "ingest", a, b, mustAbs(t, "../../samples/docs/munich-travel-tips.md"))

	out := mustRun(t, bin, env, "delete", "munich-travel-tips.md")
	if !strings.HasPrefix(out, "deleted d") || !strings.Contains(out, "munich-travel-tips.md") {
		t.Errorf("delete by name: %q", out)
	}
	out, errOut, code := hopwiseIn(t, bin, t.TempDir(), env, "delete", "notes.txt")
	if code != 1 || out != "" || !strings.Contains(errOut, `2 documents are named "notes.txt"`) {
		t.Errorf("delete of an ambiguous name: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, errOut, code = hopwiseIn(t, bin, t.TempDir(), env, "show", "missing.md")
	if code != 1 || !strings.Contains(errOut, `no document with ID or name "missing.md"`) {
		t.Errorf("show missing.md: exit %d, stderr %q", code, errOut)
	}
	docs := docsOf(t, bin, data, env[1][len("LLM_BASE_URL="):])
	if len(docs) != 2 || docs[0].Name != "notes.txt" || docs[1].Name != "notes.txt" {
		t.Fatalf("after the deletes: %+v, want the two notes.txt", docs)
	}
	out = mustRun(t, bin, env, "show", docs[0].ID)
	if !regexp.MustCompile(`(?m)^Name\s+notes.txt$`).MatchString(out) || !strings.Contains(out, "[0] "+docs[0].ID) {
		t.Errorf("show by ID:\n%s", out)
	}
	out = mustRun(t, bin, env, "delete", docs[0].ID, docs[1].ID)
	if strings.Count(out, "deleted ") != 2 {
		t.Errorf("delete by IDs: %q", out)
	}
}

// TestDocsWithTheModelsDown: commands that do not embed read the dimension from the store, so with the
// model servers gone (and no EMBED_DIM) docs, show, delete and status answer at once.
func TestDocsWithTheModelsDown(t *testing.T) {
	bin := versionedHopwise(t)
	_, data, env := scriptedEnv(t)
	mustRun(t, bin, env, "ingest", mustAbs(t, "../../samples/docs/munich-travel-tips.md"))
	// No EMBED_MODEL either: a command that compares no vectors opens the store whatever model is configured.
	down := []string{"HOPWISE_DATA_DIR=" + data, "LLM_BASE_URL=http://127.0.0.1:1/v1"}
	for _, args := range [][]string{{"docs"}, {"show", "munich-travel-tips.md"}, {"status"}, {"delete", "munich-travel-tips.md"}, {"docs", "--json"}} {
		start := time.Now()
		out, errOut, code := hopwiseIn(t, bin, t.TempDir(), down, args...)
		took := time.Since(start)
		if args[0] == "status" {
			if !strings.Contains(out, "FAILING") || !strings.Contains(out, "store ") || !strings.Contains(out, "OCR for scanned PDFs") {
				t.Errorf("status with the models down:\n%s", out)
			}
		} else if code != 0 {
			t.Errorf("hopwise %v with the models down: exit %d\n%s", args, code, errOut)
		}
		if took > 3*time.Second {
			t.Errorf("hopwise %v took %s with the models down, want an answer at once", args, took)
		}
		t.Logf("hopwise %v with the models down: %s", args, took.Round(time.Millisecond))
	}
	if out := mustRun(t, bin, down, "docs", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("docs after the delete: %s", out)
	}
	empty := []string{"HOPWISE_DATA_DIR=" + filepath.Join(t.TempDir(), "new"), "LLM_BASE_URL=http://127.0.0.1:1/v1"}
	if out := mustRun(t, bin, empty, "docs", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("docs of a store never filled: %s", out)
	}
	if _, err := os.Stat(filepath.Join(t.TempDir(), "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("docs created a data directory: %v", err)
	}
}

// TestLocalModelsSettingsPickedUp: <data dir>/models/env (written by `make models`) sets what the
// environment does not, and the environment wins over it.
func TestLocalModelsSettingsPickedUp(t *testing.T) {
	bin := versionedHopwise(t)
	model, _, _ := scriptedEnv(t)
	work := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "data", "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := "# written by deploy/models/serve.sh\nLLM_BASE_URL=" + model.URL() + "\nLLM_MODEL=file-chat\nEMBED_MODEL=test-embed\n" +
		"EMBED_DIM=64\nexport LLM_RETRIES=0\nAGENT_PROFILE=local\n"
	if err := os.WriteFile(filepath.Join(work, "data", "models", "env"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	// The data directory is ./data, the default, in the working directory.
	out, errOut, code := hopwiseIn(t, bin, work, nil, "ingest", filepath.Join(mustAbs(t, "../../samples/docs"), "munich-travel-tips.md"))
	if code != 0 || !strings.Contains(out, "done  ") {
		t.Fatalf("ingest with the local models' settings: exit %d\n%s\n%s", code, out, errOut)
	}
	out, _, _ = hopwiseIn(t, bin, work, []string{"LLM_MODEL=env-chat"}, "status")
	for _, want := range []string{`LLM_MODEL\s+env-chat`, `AGENT_PROFILE\s+local`, `EMBED_DIM\s+64`, `LLM_BASE_URL\s+` + regexp.QuoteMeta(model.URL())} {
		if !regexp.MustCompile(`(?m)^` + want + `$`).MatchString(out) {
			t.Errorf("status does not show %s:\n%s", want, out)
		}
	}
	// --data-dir names where the file is read from.
	elsewhere := t.TempDir()
	out, _, _ = hopwiseIn(t, bin, elsewhere, nil, "status", "--data-dir", filepath.Join(work, "data"))
	if !regexp.MustCompile(`(?m)^LLM_MODEL\s+file-chat$`).MatchString(out) {
		t.Errorf("status --data-dir DIR does not read DIR/models/env:\n%s", out)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestCompletion: `completion bash` prints a script, and delete completes the stored documents' names
// (cobra's __complete is what the script calls), reading the store without the model.
func TestCompletion(t *testing.T) {
	bin := versionedHopwise(t)
	if out := mustRun(t, bin, nil, "completion", "bash"); !strings.Contains(out, "__start_hopwise") {
		t.Errorf("completion bash printed no bash completion script:\n%.300s", out)
	}
	_, data, env := scriptedEnv(t)
	mustRun(t, bin, env, "ingest", mustAbs(t, "../../samples/docs/munich-travel-tips.md"))
	out := mustRun(t, bin, []string{"HOPWISE_DATA_DIR=" + data, "LLM_BASE_URL=http://127.0.0.1:1/v1"}, "__complete", "delete", "")
	if !strings.HasPrefix(out, "munich-travel-tips.md\tdone\n") {
		t.Errorf("delete completes %q, want the stored document's name", out)
	}
}

// TestServeIsTheDefault: flags without a command are serve's (`hopwise --addr ...`), as the container's
// entry point and old scripts call it; SIGTERM stops it with status 0.
func TestServeIsTheDefault(t *testing.T) {
	bin := versionedHopwise(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--addr", "127.0.0.1:0")
	cmd.Env = cleanEnv("HOPWISE_DATA_DIR="+t.TempDir(), "EMBED_DIM=64", "LLM_BASE_URL=http://127.0.0.1:1/v1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "Hopwise is running at http://127.0.0.1:") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("hopwise --addr: first line %q, %v\n%s", line, err, stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after SIGTERM: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "level=INFO") {
		t.Errorf("serve logs below info level by default:\n%s", stderr.String())
	}
}
