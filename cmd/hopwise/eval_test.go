package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/samples"
)

// TestEvalCommand runs `hopwise eval` in process against the scripted reader model over every third
// question of the dev set: --ingest fills the store, the tables and the JSON cover every question of every
// pipeline, and --retrieval reuses the ingested store without a chat call.
func TestEvalCommand(t *testing.T) {
	var lines []string
	for i, l := range strings.Split(strings.TrimSpace(string(samples.Questions())), "\n") {
		if i%3 == 0 {
			lines = append(lines, l)
		}
	}
	setPath := filepath.Join(t.TempDir(), "set.jsonl")
	if err := os.WriteFile(setPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	evaltest.Install(model)
	for k, v := range map[string]string{
		"HOPWISE_DATA_DIR": t.TempDir(), "LLM_BASE_URL": model.URL(), "LLM_MODEL": "test", "EMBED_MODEL": "test-embed",
		"EMBED_DIM": "64", "NEO4J_URI": "", "HOPWISE_LOG_LEVEL": "warn", "LLM_RETRIES": "0", "WEB_SEARCH": "off",
	} {
		t.Setenv(k, v)
	}
	run := func(args ...string) (string, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var stdout, stderr bytes.Buffer
		if code := run(ctx, append([]string{"eval"}, args...), nil, &stdout, &stderr); code != 0 {
			t.Fatalf("hopwise eval %v: exit %d\n%s", args, code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}

	jsonPath := filepath.Join(t.TempDir(), "results.json")
	out, progress := run("--set", setPath, "--ingest", demoDir, "--pipelines", "naive,advanced,no-graph", "--json", jsonPath, "--workers", "4")
	for _, want := range []string{"### factual (4 questions)", "### multi_hop (2 questions)", "### overall (10 questions)", "| no-graph |",
		"Note: no-graph"} {
		if want == "Note: no-graph" {
			if strings.Contains(out, want) {
				t.Errorf("no-graph reported as the same as advanced:\n%s", out)
			}
			continue
		}
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("hopwise eval:\n%s", out)
	if !strings.Contains(progress, "eval 30/30") {
		t.Errorf("progress lacks the last plain line (stderr is no terminal):\n%s", progress)
	}
	var results struct {
		Outcomes []struct {
			Pipeline, ID string
			Correct      bool
			Calls        int
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &results); err != nil {
		t.Fatal(err)
	}
	if len(results.Outcomes) != 30 {
		t.Errorf("%d outcomes in the JSON, want 10 questions x 3 pipelines", len(results.Outcomes))
	}

	calls := model.ChatCalls()
	out, _ = run("--set", setPath, "--retrieval")
	for _, want := range []string{"| retrieval (2 questions) | recall@1 | recall@3 | recall@5 | recall@10 |", "| hybrid |", "| hybrid + graph |", "- M01 (gold:"} {
		if !strings.Contains(out, want) {
			t.Errorf("retrieval output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("hopwise eval --retrieval:\n%s", out)
	if model.ChatCalls() != calls {
		t.Errorf("the retrieval benchmark made %d chat calls, want none", model.ChatCalls()-calls)
	}
}
