package eval_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/eval"
	"github.com/hopwise/hopwise/llm"
)

// pairsDir holds the labelled name pairs (pairs.jsonl, README.md says how each was labelled) and
// all-MiniLM-L6-v2's vectors of the mentions' texts (vectors.bin.gz).
const pairsDir = "resolution"

// TestResolutionPairs measures the merges of the normalised key alone and of the resolver on the labelled
// pairs: the resolver must merge with precision >= 0.95 at recall >= 0.8, overall.
//
// HOPWISE_RESOLUTION_RECORD=<embeddings base URL> (the all-minilm-l6-v2 server of `make models`) records
// the vectors again.
func TestResolutionPairs(t *testing.T) {
	pairs, err := eval.LoadResolutionPairs(filepath.Join(pairsDir, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if url := os.Getenv("HOPWISE_RESOLUTION_RECORD"); url != "" {
		recordPairVectors(t, url, pairs)
	}
	vectors, err := eval.LoadRecordedEmbedder(filepath.Join(pairsDir, "vectors.bin.gz"))
	if err != nil {
		t.Fatal(err)
	}
	vector := func(text string) []float32 {
		v, err := vectors.Embed(context.Background(), []string{text})
		if err != nil {
			return nil // a name without a description has no recorded vector, and needs none
		}
		return v[0]
	}
	scores := eval.EvaluatePairs(pairs, vector)
	var table strings.Builder
	if err := eval.WriteMergeTable(&table, scores); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	all := scores[1]
	if all.Method != eval.PairResolver || all.Source != "all" {
		t.Fatalf("scores[1] is %s on %s, want the resolver on all pairs", all.Method, all.Source)
	}
	for _, w := range all.WrongMerges {
		t.Logf("wrong merge %s", w)
	}
	for _, m := range all.MissedMerges {
		t.Logf("missed %s", m)
	}
	if all.Precision < 0.95 || all.Recall < 0.8 {
		t.Errorf("resolver: precision %.3f, recall %.3f; want precision >= 0.95 at recall >= 0.8", all.Precision, all.Recall)
	}
	if before := scores[0]; all.Recall <= before.Recall || all.Precision <= before.Precision {
		t.Errorf("resolver (P %.3f, R %.3f) not above the key alone (P %.3f, R %.3f) in both", all.Precision, all.Recall, before.Precision, before.Recall)
	}
}

// recordPairVectors asks the embedding server at url for the vector of every mention with a description.
func recordPairVectors(t *testing.T, url string, pairs []eval.ResolutionPair) {
	client := llm.New(llm.Config{BaseURL: url, EmbedBaseURL: url, EmbedModel: "all-minilm-l6-v2", Model: "none",
		Timeout: time.Minute}, slog.New(slog.DiscardHandler))
	rec := eval.NewRecorder(client)
	var texts []string
	for _, p := range pairs {
		for _, s := range []eval.PairSide{p.A, p.B} {
			if s.Description != "" {
				texts = append(texts, s.Mention().Text())
			}
		}
	}
	if _, err := rec.Embed(t.Context(), texts); err != nil {
		t.Fatal(err)
	}
	if err := rec.Save(filepath.Join(pairsDir, "vectors.bin.gz")); err != nil {
		t.Fatal(err)
	}
}
