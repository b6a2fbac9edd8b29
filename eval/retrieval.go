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
	MethodGraph       = "graph"          // the passages of the graph walk
	MethodHybridGraph = "hybrid + graph" // both fused, as the agent retrieves
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

// AgentRetrieval is the retrieval the agent's pass runs: the graph walk on, 16 facts with 2 source
// chunks each.
var AgentRetrieval = graphrag.RetrieveOptions{Graph: true, Facts: 16, MaxSources: 2}

// RetrievalRecall measures, without a chat model (queries are still embedded), the recall@k of the gold
// documents of the questions that have them, retrieving with the question text alone as the agent does:
// hybrid search, the graph walk's passages, and the two fused. Recall@k is the share of gold documents
// among the documents of the top k chunks.
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
		opt := AgentRetrieval
		opt.K = depth
		res, err := r.Retrieve(ctx, []graphrag.Query{{Text: q.Question}}, opt)
		if err != nil {
			return nil, fmt.Errorf("eval: retrieve %s: %w", q.ID, err)
		}
		lists := [][]graphrag.ScoredChunk{res.Hybrid, res.Walk, res.Chunks}
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
