package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Listening beyond loopback on a store without accounts, with no admin configured, stops the start (exit
// 2) with what to set; nothing listens.
func TestServeRefusesAnOpenAddressWithoutAccounts(t *testing.T) {
	bin := versionedHopwise(t)
	env := []string{"HOPWISE_DATA_DIR=" + t.TempDir(), "EMBED_DIM=64", "LLM_BASE_URL=http://127.0.0.1:1/v1"}
	out, errOut, code := hopwiseIn(t, bin, t.TempDir(), env, "serve", "--addr", "0.0.0.0:0")
	if code != 2 || strings.Contains(out, "is running") {
		t.Fatalf("serve on 0.0.0.0 without accounts: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"HOPWISE_ADMIN_USER", "HOPWISE_ADMIN_PASSWORD", "127.0.0.1"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the refusal does not name %s:\n%s", want, errOut)
		}
	}
}

// startServe runs `hopwise serve` with env and returns its base URL on 127.0.0.1 and its stderr so far;
// SIGTERM stops it at the end of the test.
func startServe(t *testing.T, env []string, addr string) (string, *lockedBuffer) {
	t.Helper()
	bin := versionedHopwise(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", addr)
	cmd.Env = cleanEnv(env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		cancel()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	port := regexp.MustCompile(`:(\d+) `).FindStringSubmatch(line)
	if err != nil || port == nil {
		t.Fatalf("serve: first line %q, %v\n%s", line, err, stderr.String())
	}
	go io.Copy(io.Discard, stdout)
	return "http://127.0.0.1:" + port[1], stderr
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func noRedirect() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// With HOPWISE_ADMIN_USER and HOPWISE_ADMIN_PASSWORD a server on 0.0.0.0 starts with that admin and asks
// everyone to sign in; its health check stays open for probes.
func TestServeCreatesTheAdminFromTheSettings(t *testing.T) {
	base, stderr := startServe(t, []string{"HOPWISE_DATA_DIR=" + t.TempDir(), "EMBED_DIM=64", "LLM_BASE_URL=http://127.0.0.1:1/v1",
		"HOPWISE_ADMIN_USER=root", "HOPWISE_ADMIN_PASSWORD=a password from the .env file"}, "0.0.0.0:0")
	resp, err := noRedirect().Get(base + "/documents")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/login") {
		t.Errorf("GET /documents = %d to %q, want a redirect to sign in\n%s", resp.StatusCode, resp.Header.Get("Location"), stderr)
	}
	if resp, err := noRedirect().Get(base + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz: %v %v", resp, err)
	}
	if strings.Contains(stderr.String(), "a password from the .env file") {
		t.Error("the log shows the admin's password")
	}
}

// With HOPWISE_ADMIN_USER alone the log gives a one-time setup link, which opens the setup page while
// everything else asks to sign in.
func TestServeLogsASetupLink(t *testing.T) {
	env := []string{"HOPWISE_DATA_DIR=" + t.TempDir(), "EMBED_DIM=64", "LLM_BASE_URL=http://127.0.0.1:1/v1", "HOPWISE_ADMIN_USER=root"}
	base, stderr := startServe(t, env, "127.0.0.1:0")
	var link []string
	for deadline := time.Now().Add(10 * time.Second); link == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		link = regexp.MustCompile(`link="?(http://[^"\s]+/setup\?token=[0-9a-f]+)`).FindStringSubmatch(stderr.String())
	}
	if link == nil {
		t.Fatalf("no setup link in the log:\n%s", stderr)
	}
	resp, err := noRedirect().Get(link[1])
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %v", link[1], resp, err)
	}
	resp.Body.Close()
	if resp, _ := noRedirect().Get(base + "/"); resp == nil || resp.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / while the setup link waits: %v, want a redirect to sign in", resp)
	}
	if resp, _ := noRedirect().Get(base + "/setup?token=0000"); resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("a wrong setup token: %v, want 404", resp)
	}
}
