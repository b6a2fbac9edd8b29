package main

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
	"github.com/hopwise/hopwise/llm/llmtest"
	"github.com/hopwise/hopwise/mcpserver/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPCommandOverStdio starts `hopwise mcp` as an MCP client does, a process spoken to on its stdin
// and stdout, and uses every tool over the sample documents with the scripted model.
func TestMCPCommandOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model, data, env := scriptedSamples(t, bin)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, cs, progress := mcpStdio(ctx, t, bin, data, model.URL(), env)
	mcptest.Exercise(t, cs, webtest.DelhiQuestion, "600 EUR", progress)
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("hopwise mcp exited with %d after its client closed stdin", code)
	}
}

// mcpStdio starts `hopwise mcp` on dataDir as an MCP client does, and connects to it; the client counts
// the progress notifications it receives.
func mcpStdio(ctx context.Context, t *testing.T, bin, dataDir, modelURL string, env []string) (*exec.Cmd, *mcp.ClientSession, *mcptest.Progress) {
	t.Helper()
	cmd := hopwiseCmd(ctx, bin, dataDir, modelURL, "mcp")
	cmd.Env = append(cmd.Env, env...)
	progress := &mcptest.Progress{}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: progress.Handler})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cmd, cs, progress
}

// scriptedSamples starts the scripted model that answers the agent's tasks (as the web app's tests use it)
// and ingests the sample documents with it into a new data directory, returning the model, the directory
// and the settings every later command needs beside hopwiseCmd's.
func scriptedSamples(t *testing.T, bin string) (*llmtest.Server, string, []string) {
	t.Helper()
	return scriptedSamplesWith(t, bin, webtest.Options{})
}

// scriptedSamplesWith is scriptedSamples with the scripted model's options.
func scriptedSamplesWith(t *testing.T, bin string, opt webtest.Options) (*llmtest.Server, string, []string) {
	t.Helper()
	model := webtest.ScriptedModel(t, opt)
	data := t.TempDir()
	env := []string{"EMBED_DIM=256", "LLM_MODEL=test-model"}
	ingest := hopwiseCmd(context.Background(), bin, data, model.URL(), "ingest", demoDir)
	ingest.Env = append(ingest.Env, env...)
	if out, err := ingest.CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	return model, data, env
}
