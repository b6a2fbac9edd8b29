package eval

import (
	"path/filepath"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// recallDepth is the k of the answer-level recall: the passages of each retrieval pass that count.
const recallDepth = 5

// passDocuments returns the documents of the first recallDepth passages of every retrieval pass the trace
// reports (the passages graded in that pass, in retrieval order), each document once, in order of first
// appearance. Web pages are not documents.
func passDocuments(trace []agent.Event) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range trace {
		if e.Type != agent.EventDocuments {
			continue
		}
		n := 0
		for _, d := range e.Docs {
			if d.Web {
				continue
			}
			if n++; n > recallDepth {
				break
			}
			name := docKey(d.DocName)
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}

// chunkDocuments returns the documents of the first k chunks, each once, in order.
func chunkDocuments(chunks []graphrag.ScoredChunk, k int) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range chunks[:min(k, len(chunks))] {
		name := docKey(c.DocName)
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// docKey compares documents by file name, as the question set names them.
func docKey(name string) string { return filepath.Base(name) }

// recall is the share of gold documents among docs; ok is false for a question without gold documents.
func recall(gold, docs []string) (float64, bool) {
	if len(gold) == 0 {
		return 0, false
	}
	have := map[string]bool{}
	for _, d := range docs {
		have[docKey(d)] = true
	}
	n := 0
	for _, g := range gold {
		if have[docKey(g)] {
			n++
		}
	}
	return float64(n) / float64(len(gold)), true
}

// factsUsed counts the graph facts grading kept as evidence.
func factsUsed(trace []agent.Event) int {
	n := 0
	for _, e := range trace {
		if e.Type == agent.EventFacts {
			n += len(e.Facts)
		}
	}
	return n
}
