package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/agent"
)

// TestLocalModelsSmoke runs the product end to end against the real local models of deploy/models, as
// installed (Qwen2.5-Coder-1.5B and the local profile): ingest the three demo documents the reference
// question needs (the amounts, the distance, the carrier), check chunks, embeddings and extracted
// entities, ask a question the documents cannot answer (it must be refused, not guessed) and the reference
// question (600 EUR, and only 600, for a flight of 5,921 km, over 3,500 km, with its sources), and check
// that no answer holds the loop's internal notes and that no passage lost its extraction. It runs only
// when HOPWISE_MODELS_ENV names the env file deploy/models/serve.sh printed (make test-local sets it), and
// in CI.
func TestLocalModelsSmoke(t *testing.T) {
	l := startLocal(t)
	// Nothing ingested can answer this: the answer must be a refusal, not a guess.
	gate := l.ask("From which gate did my Lufthansa flight from Delhi to Munich leave last Friday?")
	if !gate.NotFound {
		t.Errorf("want a refusal, got %q", gate.Answer)
	}
	ref := l.ask("How much can I receive if I am denied boarding on a Lufthansa flight from Delhi to Munich?")
	first := firstSentence(ref.Answer)
	if ref.NotFound || !strings.Contains(first, "600") || strings.Contains(first, "250") || strings.Contains(first, "400") {
		t.Errorf("want 600 EUR, and only 600, in the first sentence: %q", first)
	}
	if !strings.Contains(ref.Answer, "5,921") && !strings.Contains(ref.Answer, "5921") || !strings.Contains(ref.Answer, "3,500") && !strings.Contains(ref.Answer, "3500") {
		t.Errorf("want the reason, 5,921 km over 3,500 km, in %q", ref.Answer)
	}
	if len(ref.Citations) == 0 {
		t.Errorf("the answer cites no source")
	}
	for _, c := range ref.Citations {
		t.Logf("[%d] %s %s", c.N, c.Kind, c.DocName)
	}
	l.checkParsed()
}

// local is the binary over a data directory holding the three documents, asked through the local models.
type local struct {
	t        *testing.T
	ask      func(question string) *agent.Result
	unparsed *[]string
}

// checkParsed fails the test if a passage lost its extraction, or if more than one structured answer
// needed a repair (the client repairs once; a 1.5B model needs one now and then).
func (l local) checkParsed() {
	failed, repaired := 0, 0
	for _, line := range *l.unparsed {
		if strings.Contains(line, "extraction failed") {
			failed++
		} else {
			repaired++
		}
	}
	if failed > 0 || repaired > 1 {
		l.t.Errorf("%d extractions failed and %d structured answers needed a repair:\n%s", failed, repaired, strings.Join(*l.unparsed, "\n"))
	} else if repaired > 0 {
		l.t.Logf("one structured answer needed a repair:\n%s", strings.Join(*l.unparsed, "\n"))
	}
}

// startLocal builds the binary, ingests the three documents with the local models and checks them.
func startLocal(t *testing.T) local {
	envFile := os.Getenv("HOPWISE_MODELS_ENV")
	if envFile == "" {
		t.Skip("HOPWISE_MODELS_ENV not set: run `make test-local` to test against the local models")
	}
	var modelEnv []string
	for name, value := range readEnvFile(envFile) {
		modelEnv = append(modelEnv, name+"="+value)
	}
	if len(modelEnv) == 0 {
		t.Fatalf("%s holds no settings", envFile)
	}
	bin := buildHopwise(t)
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	t.Cleanup(cancel)
	// Every structured answer must parse: the client logs each one that did not (and is repaired or
	// fails), so the logs at info level are counted.
	var unparsed []string
	run := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = append(os.Environ(), "HOPWISE_DATA_DIR="+data, "NEO4J_URI=", "HOPWISE_LOG_LEVEL=info")
		cmd.Env = append(cmd.Env, modelEnv...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Logf("hopwise %s stderr:\n%s", strings.Join(args, " "), stderr.String())
		}
		for _, line := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(line, "invalid structured answer") || strings.Contains(line, "extraction failed") {
				unparsed = append(unparsed, line)
			}
		}
		return out, err
	}

	start := time.Now()
	docs := []string{filepath.Join(demoDir, "munich-city-distances.md"), filepath.Join(demoDir, "flight-compensation-eu-vs-us.md"),
		filepath.Join(demoDir, "airline-registry.md")}
	if out, err := run(append([]string{"ingest"}, docs...)...); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	t.Logf("ingest of %d documents: %s", len(docs), time.Since(start).Round(time.Second))
	out, err := run("docs", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var listed []struct {
		Name                             string
		Status                           string
		Chunks, ChunksEmbedded, Entities int
		FailedChunks, Relations          int
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		t.Fatal(err)
	}
	entities := 0
	for _, d := range listed {
		t.Logf("%s: %s, %d chunks, %d embedded, %d entities, %d relations, %d failed extractions", d.Name, d.Status, d.Chunks, d.ChunksEmbedded, d.Entities, d.Relations, d.FailedChunks)
		if d.Status != "done" || d.Chunks == 0 || d.ChunksEmbedded != d.Chunks {
			t.Errorf("%s: %s with %d/%d chunks embedded", d.Name, d.Status, d.ChunksEmbedded, d.Chunks)
		}
		if d.FailedChunks > 0 {
			t.Errorf("%s: %d extraction calls did not parse", d.Name, d.FailedChunks)
		}
		entities += d.Entities
	}
	if len(listed) != len(docs) || entities == 0 {
		t.Fatalf("%d documents with %d entities, want %d documents and at least one entity", len(listed), entities, len(docs))
	}

	ask := func(question string) *agent.Result {
		start := time.Now()
		out, err := run("ask", "--json", question)
		if err != nil {
			t.Fatalf("ask: %v\n%s", err, out)
		}
		var final *agent.Result
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var ev agent.Event
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("event line %q: %v", sc.Text(), err)
			}
			switch ev.Type {
			case agent.EventError:
				t.Logf("error event: %s", ev.Error)
			case agent.EventAnswer:
				final = ev.Result
			}
		}
		if final == nil {
			t.Fatal("no answer event")
		}
		t.Logf("ask %q: %s, %d model calls, %d rounds; answer:\n%s", question, time.Since(start).Round(time.Second),
			final.Usage.Calls, final.Usage.Rounds, final.Answer)
		if internal := internalNotes.FindString(final.Answer); internal != "" {
			t.Errorf("the answer holds the loop's internal notes (%q)", internal)
		}
		return final
	}

	return local{t: t, ask: ask, unparsed: &unparsed}
}

// internalNotes finds the loop's own notes in an answer: an audit's critique, a grading hypothesis, the
// list of unsupported claims, JSON keys of a verdict.
var internalNotes = regexp.MustCompile(`(?i)\b(?:critique|hypothesis|unsupported claims?|audit(?: findings)?|answerable|reasoning)\s*:|"(?:grounded|useful|answerable|facts)"\s*:`)

// firstSentence is an answer's opening, up to the first full stop followed by a space or a line end.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			return s[:i]
		}
	}
	return s
}
