package eval

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Methods of the benchmark, each a list of passages for a question.
const (
	MethodDense        = "dense"
	MethodKeyword      = "keyword (BM25)"
	MethodGoldSubQuery = "hybrid + graph, gold sub-questions"
)

// BenchMethods are the methods BenchRecall measures, in table order.
var BenchMethods = []string{MethodDense, MethodKeyword, MethodHybrid, MethodGraph, MethodHybridGraph, MethodGoldSubQuery}

// BenchResult is one method's recall over a benchmark, overall and by hop type.
type BenchResult struct {
	Method     string               `json:"method"`
	Ks         []int                `json:"ks"`
	Recall     []float64            `json:"recall"`
	ByCategory map[string][]float64 `json:"by_category"`
	Questions  []RetrievalItem      `json:"questions"`
}

// BenchRecall measures recall@ks over distinct documents of every method for every question of b,
// retrieving with r exactly as the agent's retrieval pass does (graph walk included), without a chat
// model. The last method adds the gold sub-questions (answers filled in) as queries: the ceiling of what
// the loop's own sub-questions can reach.
func BenchRecall(ctx context.Context, r *graphrag.Retriever, b *Bench, ks []int) ([]BenchResult, error) {
	depth := 0
	for _, k := range ks {
		depth = max(depth, k)
	}
	results := make([]BenchResult, len(BenchMethods))
	for i, m := range BenchMethods {
		results[i] = BenchResult{Method: m, Ks: ks, Recall: make([]float64, len(ks)), ByCategory: map[string][]float64{}}
	}
	counts := map[string]int{}
	opt := graphrag.RetrieveOptions{K: depth * 4, Graph: true}
	for _, q := range b.Questions {
		one, err := r.Retrieve(ctx, []graphrag.Query{{Text: q.Question.Question}}, opt)
		if err != nil {
			return nil, fmt.Errorf("eval: retrieve %s: %w", q.ID, err)
		}
		queries := []graphrag.Query{{Text: q.Question.Question}}
		for _, g := range q.GoldQueries() {
			queries = append(queries, graphrag.Query{Text: g})
		}
		gold, err := r.Retrieve(ctx, queries, opt)
		if err != nil {
			return nil, fmt.Errorf("eval: retrieve %s with its sub-questions: %w", q.ID, err)
		}
		lists := [][]graphrag.ScoredChunk{one.Dense, one.Keyword, one.Hybrid, one.Walk, one.Chunks, gold.Chunks}
		counts[q.Category]++
		for i, list := range lists {
			docs := chunkDocuments(list, len(list))
			item := RetrievalItem{ID: q.ID, Gold: q.GoldDocs, Documents: docs[:min(len(docs), depth)]}
			byCat := results[i].ByCategory[q.Category]
			if byCat == nil {
				byCat = make([]float64, len(ks))
			}
			for j, k := range ks {
				rc, _ := recall(q.GoldDocs, docs[:min(len(docs), k)])
				item.Recall = append(item.Recall, rc)
				results[i].Recall[j] += rc
				byCat[j] += rc
			}
			results[i].ByCategory[q.Category] = byCat
			results[i].Questions = append(results[i].Questions, item)
		}
	}
	for i := range results {
		for j := range ks {
			results[i].Recall[j] /= float64(len(b.Questions))
		}
		for c, v := range results[i].ByCategory {
			for j := range v {
				v[j] /= float64(counts[c])
			}
		}
	}
	return results, nil
}

// WriteBenchTable writes the recall of every method as a markdown table, overall and by hop type.
func WriteBenchTable(w io.Writer, name string, results []BenchResult) error {
	if len(results) == 0 {
		return nil
	}
	var cats []string
	for c := range results[0].ByCategory {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var b strings.Builder
	fmt.Fprintf(&b, "| %s (%d questions) |", name, len(results[0].Questions))
	for _, k := range results[0].Ks {
		fmt.Fprintf(&b, " R@%d |", k)
	}
	for _, c := range cats {
		for _, k := range results[0].Ks {
			fmt.Fprintf(&b, " %s R@%d |", c, k)
		}
	}
	cols := len(results[0].Ks) * (1 + len(cats))
	b.WriteString("\n| --- |" + strings.Repeat(" ---: |", cols) + "\n")
	for _, r := range results {
		b.WriteString("| " + r.Method + " |")
		for _, v := range r.Recall {
			fmt.Fprintf(&b, " %.3f |", v)
		}
		for _, c := range cats {
			for _, v := range r.ByCategory[c] {
				fmt.Fprintf(&b, " %.3f |", v)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
