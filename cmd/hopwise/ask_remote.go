package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/config"
)

// remoteSlack is how much longer than the agent's own cap (AGENT_MAX_RUN_TIME) the CLI waits for a
// server's answer: the server ends every run within its cap, so this only ends a connection that hangs.
const remoteSlack = 2 * time.Minute

// askRemote asks the Hopwise at HOPWISE_URL instead of opening the store: POST /api/v1/ask as
// server-sent events, with HOPWISE_TOKEN as the Bearer token, printing the events as a local ask does.
func askRemote(ctx context.Context, cfg *config.Config, question string, emit func(agent.Event)) (agent.Result, error) {
	base, err := url.Parse(strings.TrimRight(cfg.RemoteURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return agent.Result{}, usageError(fmt.Errorf("HOPWISE_URL %q: want the address of a running Hopwise, such as http://hopwise.example.org:8080", cfg.RemoteURL))
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.MaxRunTime+remoteSlack)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"question": question})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+"/api/v1/ask", bytes.NewReader(body))
	if err != nil {
		return agent.Result{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	if cfg.Workspace != "" && cfg.Workspace != "default" { // a token limited to one workspace acts in it unasked
		req.Header.Set("X-Hopwise-Workspace", cfg.Workspace)
	}
	if cfg.RemoteToken != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.RemoteToken)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return agent.Result{}, fmt.Errorf("ask %s: %w", base.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return agent.Result{}, remoteProblem(resp, base.Host, cfg.RemoteToken != "")
	}
	return readAnswerStream(resp.Body, emit)
}

// remoteProblem is the error of a refused question, with the server's own message.
func remoteProblem(resp *http.Response, host string, hasToken bool) error {
	var problem struct{ Error string }
	_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&problem)
	msg := fmt.Sprintf("%s answered %d %s", host, resp.StatusCode, http.StatusText(resp.StatusCode))
	if problem.Error != "" {
		msg += ": " + problem.Error
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized && !hasToken:
		msg += " (set HOPWISE_TOKEN to an API token from the server's Settings page)"
	case resp.StatusCode == http.StatusUnauthorized:
		msg += " (HOPWISE_TOKEN was refused: it may be revoked, or its account disabled)"
	}
	return errors.New(msg)
}

// readAnswerStream reads the events of /api/v1/ask until "done", whose result it returns; a stream that
// ends before it is an error.
func readAnswerStream(r io.Reader, emit func(agent.Event)) (agent.Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var name string
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && name != "":
			payload := []byte(strings.Join(data, "\n"))
			if name == "done" {
				var done struct{ Result agent.Result }
				if err := json.Unmarshal(payload, &done); err != nil {
					return agent.Result{}, fmt.Errorf("the server's answer does not read: %w", err)
				}
				return done.Result, nil
			}
			var ev agent.Event
			if err := json.Unmarshal(payload, &ev); err == nil {
				emit(ev)
			}
			name, data = "", nil
		}
	}
	if err := sc.Err(); err != nil {
		return agent.Result{}, fmt.Errorf("the answer's stream broke off: %w", err)
	}
	return agent.Result{}, errors.New("the server ended the answer's stream before the answer")
}

// printAnswer runs answer with the printer of ask: the streamed text and, with trace, the steps, then the
// sources; with asJSON every event as one JSON line instead.
func (c *cli) printAnswer(trace, asJSON bool, answer func(emit func(agent.Event)) (agent.Result, error)) error {
	p := &askPrinter{out: c.e.stdout, steps: c.e.stderr, trace: trace}
	emit := p.event
	if asJSON {
		enc := json.NewEncoder(c.e.stdout)
		emit = func(ev agent.Event) { _ = enc.Encode(ev) }
	}
	res, err := answer(emit)
	if err != nil {
		return err
	}
	if !asJSON {
		p.sources(res)
	}
	return nil
}
