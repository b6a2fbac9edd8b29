package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// TestSearchCommand runs the built binary: ingest the demo corpus, then `hopwise search --json`.
func TestSearchCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildHopwise(t)
	model := llmtest.New(t, llmtest.WithEmbedDim(64))
	model.Handle(graphragtest.Extraction)
	data := filepath.Join(t.TempDir(), "a", "new", "data") // a data directory that does not exist yet is created
	if out, err := hopwiseCmd(context.Background(), bin, data, model.URL(), "ingest", demoDir).CombinedOutput(); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	type result struct {
		Chunks []struct {
			ID, Document, Text string
			Rank               int
		} `json:"chunks"`
		Facts []struct {
			Sentence, Type, Source, Target string
			Values                         map[string]any
			Chunks                         []string
		} `json:"facts"`
	}
	search := func(q string) result {
		out, err := hopwiseCmd(context.Background(), bin, data, model.URL(), "search", "--json", q).Output()
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("search %q: %v\n%s", q, err, out)
		}
		return r
	}

	r := search("TRV-117")
	if len(r.Chunks) == 0 || r.Chunks[0].Document != "nexa-ai-employee-handbook.md" || !strings.Contains(r.Chunks[0].Text, "TRV-117") {
		t.Errorf("TRV-117: first chunk %+v, want the handbook's TRV-117 passage", r.Chunks)
	}

	r = search("Delhi Munich distance")
	if len(r.Facts) == 0 {
		t.Fatal("Delhi Munich distance: no graph facts")
	}
	f := r.Facts[0]
	if f.Type != "DISTANCE_FROM" || f.Target != "Delhi" || f.Values["distance_km"] != 5921.0 || len(f.Chunks) == 0 {
		t.Errorf("first fact %+v, want Munich DISTANCE_FROM Delhi 5921 km with its source chunk", f)
	}
	var sourceFound bool
	for _, c := range search("distance from Munich Delhi 5,921 km").Chunks {
		if c.ID == f.Chunks[0] && strings.Contains(c.Text, "| Delhi | India | 5,921 km |") {
			sourceFound = true
		}
	}
	if !sourceFound {
		t.Errorf("the fact's source chunk %s does not hold the Delhi row", f.Chunks[0])
	}
}
