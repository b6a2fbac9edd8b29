package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/auth"
	"github.com/hopwise/hopwise/handlers/webtest"
)

// `hopwise ask` with HOPWISE_URL asks a running server (here the real handlers over the demo store, sign-in
// required, in this process) with HOPWISE_TOKEN as its Bearer token, and prints the answer and sources as a
// local ask does (--json: the events); without a token, or once it is revoked, it fails saying why.
func TestAskRemoteServerWithToken(t *testing.T) {
	app := webtest.New(t, webtest.Options{Demo: true, Auth: auth.Options{Required: true}})
	ctx := t.Context()
	if _, err := app.Auth.Bootstrap(ctx, "ana", "a long test password"); err != nil {
		t.Fatal(err)
	}
	ana, _, err := app.Auth.Login(ctx, "ana", "a long test password", "test")
	if err != nil {
		t.Fatal(err)
	}
	tok, token, err := app.Auth.CreateToken(ctx, ana, "cli", auth.Reader)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler)
	t.Cleanup(srv.Close)
	const q = "How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?"
	ask := func(token string, args ...string) (int, string, string) {
		t.Helper()
		t.Setenv("HOPWISE_URL", srv.URL)
		t.Setenv("HOPWISE_TOKEN", token)
		var out, errOut bytes.Buffer
		code := run(ctx, append([]string{"ask"}, args...), strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}

	code, out, errOut := ask(token, q)
	if code != 0 || !strings.Contains(out, "600 EUR") || !strings.Contains(out, "Sources:") {
		t.Fatalf("remote ask: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = ask(token, "--json", q)
	var final *agent.Result
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		if ev.Type == agent.EventAnswer {
			final = ev.Result
		}
	}
	if code != 0 || final == nil || !strings.Contains(final.Answer, "600 EUR") || len(final.Citations) == 0 {
		t.Errorf("remote ask --json: exit %d, answer event %+v", code, final)
	}

	code, _, errOut = ask("", q)
	if code != 1 || !strings.Contains(errOut, "401") || !strings.Contains(errOut, "set HOPWISE_TOKEN") {
		t.Errorf("without a token: exit %d\n%s", code, errOut)
	}
	if err := app.Auth.RevokeToken(ctx, ana, tok.ID); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = ask(token, q)
	if code != 1 || strings.Contains(out, "600 EUR") || !strings.Contains(errOut, "revoked") {
		t.Errorf("with the revoked token: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := ask(token, "--url", "ftp://x", q); code != 2 || !strings.Contains(errOut, "HOPWISE_URL") {
		t.Errorf("a bad HOPWISE_URL: exit %d\n%s", code, errOut)
	}
}
