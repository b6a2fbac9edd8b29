// Package eval measures Hopwise: it runs a question set through the naive baseline, the full research
// loop and ablations of it, scores the answers, the retrieved documents and the cost, and writes markdown
// tables; and it measures retrieval alone (hybrid search with and without the graph) without a chat model.
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Question categories of a set (samples.Questions describes them).
const (
	Factual      = "factual"
	ExactID      = "exact_id"
	MultiHop     = "multi_hop"
	OutOfCorpus  = "out_of_corpus"
	Unanswerable = "unanswerable"
)

// Question is one line of a question set.
type Question struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Question string `json:"question"`
	// AnswerMustContain lists groups of strings: a correct answer contains one string of every group.
	AnswerMustContain [][]string `json:"answer_must_contain"`
	// AnswerMustNotContain lists strings the answer's first sentence must not hold: an answer that opens
	// with every tier ("250, 400 or 600 EUR") or with both "yes" and "no" has not chosen.
	AnswerMustNotContain []string `json:"answer_must_not_contain"`
	// GoldDocs names the documents (file names) whose facts the answer needs.
	GoldDocs []string `json:"gold_docs"`
}

// ReadSet reads a question set, one JSON object a line; blank lines are skipped.
func ReadSet(r io.Reader) ([]Question, error) {
	var out []Question
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var q Question
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, fmt.Errorf("eval: question set line %d: %w", line, err)
		}
		if q.ID == "" || strings.TrimSpace(q.Question) == "" {
			return nil, fmt.Errorf("eval: question set line %d: id and question are required", line)
		}
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read question set: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("eval: the question set is empty")
	}
	return out, nil
}

// LoadSet reads the question set in the file at path.
func LoadSet(path string) ([]Question, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	return ReadSet(f)
}

// categoryOrder is the order tables list categories in; other categories follow as first seen.
var categoryOrder = []string{Factual, ExactID, MultiHop, OutOfCorpus, Unanswerable}
