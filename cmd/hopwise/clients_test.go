package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/handlers/webtest"
)

// TestRealClients runs testdata/real_clients.py, which uses Hopwise as people's tools do: the openai
// package asks through /v1/chat/completions (streamed and not), the mcp package lists and calls the tools
// over stdio (hopwise mcp) and streamable HTTP (/mcp), and openapi-spec-validator checks the OpenAPI
// document. It needs a Python with those packages: HOPWISE_CLIENTS_PYTHON (make test-clients makes one).
func TestRealClients(t *testing.T) {
	python := os.Getenv("HOPWISE_CLIENTS_PYTHON")
	if python == "" {
		t.Skip("HOPWISE_CLIENTS_PYTHON is not set: `make test-clients` runs this test with the client packages")
	}
	bin := buildHopwise(t)
	model, data, env := scriptedSamples(t, bin)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	serve := hopwiseCmd(ctx, bin, data, model.URL(), "serve", "--addr", addr)
	serve.Env = append(serve.Env, env...)
	var serveLog strings.Builder
	serve.Stdout, serve.Stderr = &serveLog, &serveLog
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = serve.Process.Signal(os.Interrupt)
		_ = serve.Wait()
		if t.Failed() {
			t.Logf("hopwise serve:\n%s", serveLog.String())
		}
	}()
	waitHealthy(t, "http://"+addr)

	mcpEnv := map[string]string{}
	for _, kv := range append(hopwiseCmd(ctx, bin, data, model.URL()).Env[len(os.Environ()):], env...) {
		k, v, _ := strings.Cut(kv, "=")
		mcpEnv[k] = v
	}
	mcpEnvJSON, _ := json.Marshal(mcpEnv)
	py := exec.CommandContext(ctx, python, "testdata/real_clients.py")
	py.Env = append(os.Environ(), "HOPWISE_URL=http://"+addr, "HOPWISE_BIN="+bin, "HOPWISE_MCP_ENV="+string(mcpEnvJSON),
		"HOPWISE_QUESTION="+webtest.DelhiQuestion, "HOPWISE_WANT=600 EUR")
	out, err := py.CombinedOutput()
	t.Logf("real_clients.py:\n%s", out)
	if err != nil || !strings.Contains(string(out), "all real clients passed") {
		t.Fatalf("real_clients.py: %v", err)
	}
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not answer /healthz within 30 s", base)
}
