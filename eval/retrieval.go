package eval

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Retrieval methods compared by RetrievalRecall.
const (
	MethodHybrid      = "hybrid"         // BM25 + vectors fused by reciprocal rank
	MethodGraph       = "graph"          // the source chunks of the graph facts around the entities named
	MethodHybridGraph = "hybrid + graph" // both lists fused by reciprocal rank
)

// RetrievalResult is the recall of one method over a set of questions.
type RetrievalResult struct {
	Method    string          `json:"method"`
	Ks        []int           `json:"ks"`
	Recall    []float64       `json:"recall"` // mean recall@Ks[i] of the gold documents
	Questions []RetrievalItem `json:"questions"`
}

// RetrievalItem is one question's documents, best first, for one method.
type RetrievalItem struct {
	ID        string    `json:"id"`
	Gold      []string  `json:"gold"`
	Documents []string  `json:"documents"` // of the top max(Ks) chunks, each once
	Recall    []float64 `json:"recall"`
}

// GraphFactOptions are the graph retrieval bounds of the agent's retrieval pass: 2 hops, 16 facts, 2
// source chunks each.
var GraphFactOptions = graphrag.GraphOptions{Hops: 2, Limit: 16, MaxSources: 2}

// RetrievalRecall measures, without a chat model (queries are still embedded), the recall@k of the gold
// documents of the questions that have them, searching with the question text alone: hybrid search, the
// source chunks of the graph facts (facts in rank order, each fact's chunks in turn), and the two lists
// fused by reciprocal rank so that both share the same k. Recall@k is the share of gold documents among
// the documents of the top k chunks.
func RetrievalRecall(ctx context.Context, r *graphrag.Retriever, set []Question, ks []int) ([]RetrievalResult, error) {
	depth := 0
	for _, k := range ks {
		depth = max(depth, k)
	}
	results := []RetrievalResult{{Method: MethodHybrid, Ks: ks}, {Method: MethodGraph, Ks: ks}, {Method: MethodHybridGraph, Ks: ks}}
	n := 0
	for _, q := range set {
		if len(q.GoldDocs) == 0 {
			continue
		}
		n++
		hybrid, err := r.Search(ctx, []graphrag.Query{{Text: q.Question}}, depth)
		if err != nil {
			return nil, fmt.Errorf("eval: hybrid search %s: %w", q.ID, err)
		}
		facts, _, err := r.Facts(ctx, []string{q.Question}, GraphFactOptions)
		if err != nil {
			return nil, fmt.Errorf("eval: graph facts %s: %w", q.ID, err)
		}
		graph := factChunks(facts)
		lists := [][]graphrag.ScoredChunk{hybrid, graph, graphrag.Fuse([][]graphrag.ScoredChunk{hybrid, graph}, depth)}
		for i, list := range lists {
			item := RetrievalItem{ID: q.ID, Gold: q.GoldDocs, Documents: chunkDocuments(list, depth)}
			for j, k := range ks {
				rc, _ := recall(q.GoldDocs, chunkDocuments(list, k))
				item.Recall = append(item.Recall, rc)
				if len(results[i].Recall) <= j {
					results[i].Recall = append(results[i].Recall, 0)
				}
				results[i].Recall[j] += rc
			}
			results[i].Questions = append(results[i].Questions, item)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("eval: no question with gold documents")
	}
	for i := range results {
		for j := range results[i].Recall {
			results[i].Recall[j] /= float64(n)
		}
	}
	return results, nil
}

// factChunks lists the source chunks of facts, in fact order, each once.
func factChunks(facts []graphrag.Fact) []graphrag.ScoredChunk {
	var out []graphrag.ScoredChunk
	seen := map[string]bool{}
	for _, f := range facts {
		for _, c := range f.Sources {
			if !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, graphrag.ScoredChunk{Chunk: c, Rank: len(out) + 1})
			}
		}
	}
	return out
}

// WriteRetrievalTable writes the recall of each method as a markdown table, then each question's
// documents by method.
func WriteRetrievalTable(w io.Writer, results []RetrievalResult) error {
	if len(results) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| retrieval (%d questions) |", len(results[0].Questions))
	for _, k := range results[0].Ks {
		fmt.Fprintf(&b, " recall@%d |", k)
	}
	b.WriteString("\n| --- |" + strings.Repeat(" --- |", len(results[0].Ks)) + "\n")
	for _, r := range results {
		b.WriteString("| " + r.Method + " |")
		for _, v := range r.Recall {
			fmt.Fprintf(&b, " %.2f |", v)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for i, item := range results[0].Questions {
		fmt.Fprintf(&b, "- %s (gold: %s)\n", item.ID, strings.Join(item.Gold, ", "))
		for _, r := range results {
			fmt.Fprintf(&b, "  - %s: %s\n", r.Method, strings.Join(r.Questions[i].Documents, ", "))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
