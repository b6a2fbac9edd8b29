package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestCommunitiesCommand: after `hopwise ingest --samples` the communities exist (ingest recomputes
// them); `communities --summarize` prints the plan with its calls and tokens before any model call and
// writes nothing when the answer is no; with --yes it writes them with progress on stderr, in the calls
// the plan said.
func TestCommunitiesCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	model.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		if !strings.HasPrefix(req.System(), "Task: summarize community.") {
			return llmtest.Reply{}, false
		}
		b, _ := json.Marshal(map[string]string{"title": "A topic", "summary": "What the passages say."})
		return llmtest.Reply{Content: string(b)}, true
	})
	summaries := func() int {
		n := 0
		for _, r := range model.Requests() {
			if strings.HasPrefix(r.System(), "Task: summarize community.") {
				n++
			}
		}
		return n
	}
	data := t.TempDir()
	ctx := context.Background()
	out, err := hopwiseCmd(ctx, bin, data, model.URL(), "ingest", "--samples").CombinedOutput()
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`communities recomputed: [1-9]\d*, 0 with a summary`).Match(out) {
		t.Errorf("ingest output lacks the recomputed communities:\n%s", out)
	}

	cmd := hopwiseCmd(ctx, bin, data, model.URL(), "communities", "--summarize")
	cmd.Stdin = strings.NewReader("n\n")
	out, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("communities: %v\n%s", err, out)
	}
	plan := regexp.MustCompile(`Summarising (\d+) communities takes (\d+) model calls to test: about (\d+) prompt tokens and at most (\d+) answer tokens`).FindSubmatch(out)
	if plan == nil || !strings.Contains(string(out), "Write them? [y/N]") || !strings.Contains(string(out), "nothing written") {
		t.Fatalf("want the plan, the question and nothing written:\n%s", out)
	}
	if n := summaries(); n != 0 {
		t.Fatalf("%d summary calls after answering no", n)
	}

	var stdout, stderr strings.Builder
	cmd = hopwiseCmd(ctx, bin, data, model.URL(), "communities", "--summarize", "--yes")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("communities --yes: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	calls := string(plan[2])
	if !strings.Contains(stdout.String(), "done: "+calls+" of "+calls+" summaries written in "+calls+" model calls") {
		t.Errorf("stdout %q: want all %s written", stdout.String(), calls)
	}
	if !strings.Contains(stderr.String(), "  1/"+calls+" communities, 1 model calls") {
		t.Errorf("stderr lacks the progress:\n%s", stderr.String())
	}
	if n := summaries(); calls != strconv.Itoa(n) {
		t.Errorf("%d summary calls, the plan said %s", n, calls)
	}
	out, err = hopwiseCmd(ctx, bin, data, model.URL(), "communities").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "A topic") {
		t.Errorf("communities after the run: %v\n%s", err, out)
	}
}
