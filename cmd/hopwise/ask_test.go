package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/eval/evaltest"
	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestAskCommand runs the built binary over the ingested demo corpus with the scripted reader model:
// `hopwise ask` prints the streamed answer and its sources; `--json` prints one event per line ending with
// the answer and its citations.
func TestAskCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	evaltest.Install(model)
	data := t.TempDir()
	if out, err := hopwiseCmd(context.Background(), bin, data, model.URL(), "ingest", demoDir).CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	const q = "Which S-Bahn lines connect Munich Airport with the central station?"

	out, err := hopwiseCmd(context.Background(), bin, data, model.URL(), "ask", q).Output()
	if err != nil {
		t.Fatalf("ask: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"S1", "S8", "munich-travel-tips.md"} {
		if !strings.Contains(text, want) {
			t.Errorf("ask output lacks %q:\n%s", want, text)
		}
	}

	out, err = hopwiseCmd(context.Background(), bin, data, model.URL(), "ask", "--json", q).Output()
	if err != nil {
		t.Fatalf("ask --json: %v", err)
	}
	var types []agent.EventType
	var final *agent.Result
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev agent.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q is not an event: %v", sc.Text(), err)
		}
		types = append(types, ev.Type)
		if ev.Type == agent.EventAnswer {
			final = ev.Result
		}
	}
	if final == nil || !strings.Contains(final.Answer, "S1") || len(final.Citations) == 0 {
		t.Fatalf("final answer event %+v, want an answer naming S1 with citations", final)
	}
	var tokens int
	for _, ty := range types {
		if ty == agent.EventToken {
			tokens++
		}
	}
	if tokens < 2 || types[len(types)-1] != agent.EventAnswer && types[len(types)-2] != agent.EventAnswer {
		t.Errorf("events %v: want streamed tokens and the answer at the end", types)
	}
}
