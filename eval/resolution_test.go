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
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/sqlite"
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

// TestResolutionAtIngestOnDemo measures the resolver as it runs at ingest on the demo pairs (ingested in
// one order, one passage at a time), its candidates found by name alone and by name and meaning (the
// passages near a name's description): the candidates by meaning must add right merges and no wrong one.
//
// HOPWISE_RESOLUTION_RECORD=<embeddings base URL> records the vectors of the demo passages and names again
// (resolution/demo-vectors.bin.gz).
func TestResolutionAtIngestOnDemo(t *testing.T) {
	pairs, err := eval.LoadResolutionPairs(filepath.Join(pairsDir, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(pairsDir, "demo-vectors.bin.gz")
	var embed graphrag.Embedder
	var rec *eval.Recorder
	if url := os.Getenv("HOPWISE_RESOLUTION_RECORD"); url != "" {
		rec = eval.NewRecorder(llm.New(llm.Config{BaseURL: url, EmbedBaseURL: url, EmbedModel: "all-minilm-l6-v2", Model: "none",
			Timeout: time.Minute}, slog.New(slog.DiscardHandler)))
		embed = rec
	} else {
		if embed, err = eval.LoadRecordedEmbedder(path); err != nil {
			t.Fatal(err)
		}
	}
	run := func(byMeaning bool) eval.MergeScore {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "hopwise.db"), sqlite.Options{EmbedDim: 384, EmbedModel: "all-minilm-l6-v2"},
			slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		s, err := eval.ResolveDemoPairs(ctx, pairs, "../samples/docs", embed, byMeaning, st)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	with := run(true)
	names := run(false)
	if rec != nil {
		if err := rec.Save(path); err != nil {
			t.Fatal(err)
		}
	}
	var table strings.Builder
	if err := eval.WriteMergeTable(&table, []eval.MergeScore{names, with}); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	for _, s := range []eval.MergeScore{names, with} {
		for _, w := range s.WrongMerges {
			t.Logf("%s: wrong merge %s", s.Method, w)
		}
		for _, m := range s.MissedMerges {
			t.Logf("%s: missed %s", s.Method, m)
		}
	}
	if with.Right <= names.Right || len(with.WrongMerges) > len(names.WrongMerges) {
		t.Errorf("candidates by meaning: %d right merges and %d wrong, by name alone %d and %d; want more right ones and no more wrong",
			with.Right, len(with.WrongMerges), names.Right, len(names.WrongMerges))
	}
}
