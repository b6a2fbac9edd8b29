package main

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestRetryCommand: a passage whose extraction failed is extracted again by `hopwise retry NAME` once the
// model answers, and a document with nothing failed is refused with exit 1.
func TestRetryCommand(t *testing.T) {
	bin := versionedHopwise(t)
	var broken atomic.Bool
	broken.Store(true)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(func(req llmtest.Request) (llmtest.Reply, bool) {
		if broken.Load() && !req.IsEmbed() && req.Contains("Oktoberfest") {
			return llmtest.Reply{Content: "I cannot produce JSON for this."}, true
		}
		return llmtest.Reply{}, false
	})
	model.Handle(graphragtest.Extraction)
	env := []string{"HOPWISE_DATA_DIR=" + t.TempDir(), "LLM_BASE_URL=" + model.URL(), "LLM_MODEL=test",
		"EMBED_MODEL=test-embed", "EMBED_DIM=64", "LLM_RETRIES=0"}

	out := mustRun(t, bin, env, "ingest", mustAbs(t, "../../samples/docs/munich-travel-tips.md"))
	if !strings.Contains(out, "1 passage(s) without entities") {
		t.Fatalf("ingest with a failing passage: %q", out)
	}
	broken.Store(false)
	chats := model.ChatCalls()
	out = mustRun(t, bin, env, "retry", "munich-travel-tips.md")
	if !strings.HasPrefix(out, "done  munich-travel-tips.md: d") || strings.Contains(out, "without entities") {
		t.Errorf("retry: %q, want done with every passage extracted", out)
	}
	if n := model.ChatCalls() - chats; n != 1 {
		t.Errorf("retry sent %d chat requests, want 1 (the failed passage)", n)
	}
	out, _, code := hopwiseIn(t, bin, t.TempDir(), env, "retry", "munich-travel-tips.md")
	if code != 1 || !strings.Contains(out, "nothing to retry") {
		t.Errorf("retry with nothing failed: exit %d, stdout %q", code, out)
	}
}
