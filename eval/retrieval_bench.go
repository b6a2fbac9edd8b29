package eval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Methods of the benchmark, each a list of passages for a question.
const (
	MethodDense         = "dense"
	MethodKeyword       = "keyword (BM25)"
	MethodAgentSubQuery = "hybrid + graph, the agent's sub-questions"
	MethodGoldSubQuery  = "hybrid + graph, gold sub-questions"
)

// BenchMethods are the methods BenchRecall measures, in table order; MethodAgentSubQuery comes before the
// gold sub-questions when the agent's queries are given.
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
// the loop's own sub-questions can reach. With loop (not nil), the queries the agent's loop wrote for each
// question (RecordAgentQueries) are added the same way, as the method before it; a question loop lacks
// counts with the question alone.
func BenchRecall(ctx context.Context, r *graphrag.Retriever, b *Bench, ks []int, loop map[string]AgentQueries) ([]BenchResult, error) {
	depth := 0
	for _, k := range ks {
		depth = max(depth, k)
	}
	methods := BenchMethods
	if loop != nil {
		methods = slices.Insert(slices.Clone(methods), len(methods)-1, MethodAgentSubQuery)
	}
	results := make([]BenchResult, len(methods))
	for i, m := range methods {
		results[i] = BenchResult{Method: m, Ks: ks, Recall: make([]float64, len(ks)), ByCategory: map[string][]float64{}}
	}
	counts := map[string]int{}
	opt := graphrag.RetrieveOptions{K: depth * 4, Graph: true}
	for _, q := range b.Questions {
		one, err := r.Retrieve(ctx, []graphrag.Query{{Text: q.Question.Question}}, opt)
		if err != nil {
			return nil, fmt.Errorf("eval: retrieve %s: %w", q.ID, err)
		}
		lists := [][]graphrag.ScoredChunk{one.Dense, one.Keyword, one.Hybrid, one.Walk, one.Chunks}
		if subs := loop[q.ID].Queries; loop != nil && len(subs) == 0 {
			lists = append(lists, one.Chunks) // the loop asked for nothing more
		} else if loop != nil {
			own, err := withSubQueries(ctx, r, q.Question.Question, subs, opt)
			if err != nil {
				return nil, fmt.Errorf("eval: retrieve %s with the agent's sub-questions: %w", q.ID, err)
			}
			lists = append(lists, own)
		}
		gold, err := withSubQueries(ctx, r, q.Question.Question, q.GoldQueries(), opt)
		if err != nil {
			return nil, fmt.Errorf("eval: retrieve %s with its sub-questions: %w", q.ID, err)
		}
		lists = append(lists, gold)
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

// withSubQueries retrieves for the question with the sub-questions as further queries, as the agent's
// retrieval pass does.
func withSubQueries(ctx context.Context, r *graphrag.Retriever, question string, subs []string, opt graphrag.RetrieveOptions) ([]graphrag.ScoredChunk, error) {
	queries := []graphrag.Query{{Text: question}}
	for _, s := range subs {
		queries = append(queries, graphrag.Query{Text: s})
	}
	res, err := r.Retrieve(ctx, queries, opt)
	return res.Chunks, err
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
