package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/llm"
)

// Batch sizes of one grading call: passages and web pages are long, facts are one line.
const (
	batchDocs  = 6
	batchFacts = 8
)

// verdict gives its reason before the verdict: with {useful, reason} the local 1.5B model wrote "not
// useful" beside a reason saying the passage answered; with the reason first it judged correctly.
type verdict struct {
	N      int    `json:"n" description:"the document's number"`
	Reason string `json:"reason" description:"a few words: what the document says that matters, or that it does not" maxLength:"100"`
	Useful bool   `json:"useful"`
}

type grading struct {
	Documents  []verdict `json:"documents" description:"one verdict per document" maxItems:"14"`
	Hypothesis string    `json:"hypothesis" description:"how the question can be answered from what is known, naming the fact still needed" maxLength:"300"`
	Missing    string    `json:"missing" description:"the information still missing, or empty" maxLength:"200"`
}

func (g grading) Validate() error {
	if len(g.Documents) == 0 {
		return errors.New("documents is empty: give a verdict for every numbered document")
	}
	return nil
}

// graded is a source with its verdict.
type graded struct {
	source
	useful bool
	reason string
}

// grade judges the new sources against the question and every query, one structured call per batch, all
// batches at once, keeps the useful ones and updates the hypothesis. It returns how many sources it kept.
func (r *run) grade(ctx context.Context, items []source) (int, error) {
	if len(items) == 0 {
		r.finished(NodeGrade, "Nothing new to read")
		return 0, nil
	}
	r.started(NodeGrade, fmt.Sprintf("Reading %d new sources", len(items)))
	var results []graded
	if !r.cfg.Techniques.Grading {
		for _, s := range items {
			results = append(results, graded{source: s, useful: true, reason: "kept without grading"})
		}
	} else {
		var err error
		if results, err = r.gradeBatches(ctx, items); err != nil {
			return 0, err
		}
	}
	var kept []source
	for _, g := range results {
		if g.useful {
			kept = append(kept, g.source)
		}
	}
	n := r.st.keep(kept)
	r.reportGrades(results)
	return n, nil
}

// gradeBatches runs one call per batch within the call budget; sources of batches over budget, or whose
// answer stayed unreadable, count as not useful with the reason said. The hypotheses and missing facts of
// the batches replace the previous ones, joined in batch order.
func (r *run) gradeBatches(ctx context.Context, items []source) ([]graded, error) {
	batches := split(items)
	affordable := 0 // one batch at least while any call is left, the rest as far as generation and audit allow
	if left := r.callsLeft(); left > 0 {
		affordable = min(len(batches), max(left-reserveCalls, 1))
	}
	out := make([]batchGrade, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		if i >= affordable {
			out[i].results = reject(b, "not read: the model call budget is spent")
			continue
		}
		wg.Go(func() { out[i], errs[i] = r.gradeBatch(ctx, b) })
	}
	if affordable > 0 {
		r.round()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("agent: grade documents: %w", err)
	}
	var all []graded
	var hyps, missing []string
	for _, g := range out {
		all = append(all, g.results...)
		hyps = appendDistinct(hyps, g.hypothesis)
		missing = appendDistinct(missing, g.missing)
	}
	if len(hyps) > 0 {
		r.st.hypothesis = strings.Join(hyps, " ")
		r.st.missing = strings.Join(missing, " ")
	}
	return all, nil
}

type batchGrade struct {
	results             []graded
	hypothesis, missing string
}

func appendDistinct(list []string, s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return list
	}
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return list
		}
	}
	return append(list, s)
}

// split cuts items into batches of at most batchDocs passages or web pages and batchFacts facts, in order.
func split(items []source) [][]source {
	var docs, facts []source
	for _, s := range items {
		if s.kind == KindFact {
			facts = append(facts, s)
		} else {
			docs = append(docs, s)
		}
	}
	n := max((len(docs)+batchDocs-1)/batchDocs, (len(facts)+batchFacts-1)/batchFacts)
	batches := make([][]source, n)
	for i := range n {
		batches[i] = append(batches[i], docs[min(i*batchDocs, len(docs)):min((i+1)*batchDocs, len(docs))]...)
		batches[i] = append(batches[i], facts[min(i*batchFacts, len(facts)):min((i+1)*batchFacts, len(facts))]...)
	}
	return batches
}

func reject(b []source, reason string) []graded {
	out := make([]graded, len(b))
	for i, s := range b {
		out[i] = graded{source: s, reason: reason}
	}
	return out
}

// gradeBatch asks one call about one batch; documents the answer leaves out are not useful.
func (r *run) gradeBatch(ctx context.Context, b []source) (batchGrade, error) {
	g, err := llm.Structured[grading](ctx, r.a.llm, request("grade", promptGrade, r.gradePrompt(b)))
	if errors.Is(err, llm.ErrInvalidOutput) {
		r.a.log.Warn("agent: grading answer unreadable", "err", err)
		r.rec.send(Event{Type: EventError, Node: NodeGrade, Error: "a grading answer was unreadable; its documents were set aside"})
		return batchGrade{results: reject(b, "not graded: the grader's answer was unreadable")}, nil
	}
	if err != nil {
		return batchGrade{}, err
	}
	out := reject(b, "not graded")
	for _, v := range g.Documents {
		if v.N >= 1 && v.N <= len(b) {
			out[v.N-1].useful, out[v.N-1].reason = v.Useful, strings.TrimSpace(v.Reason)
		}
	}
	return batchGrade{results: out, hypothesis: g.Hypothesis, missing: g.Missing}, nil
}

func (r *run) gradePrompt(b []source) string {
	var s strings.Builder
	s.WriteString("Question: " + r.st.question + "\n")
	writeList(&s, "Queries asked so far", r.st.subQueries())
	var notes strings.Builder
	writeNote(&notes, "Hypothesis so far", r.st.hypothesis)
	writeNotes(&s, notes.String())
	s.WriteString("\nDocuments:\n")
	for i, src := range b {
		writeData(&s, i+1, src.origin(), src.text())
	}
	return s.String()
}

// reportGrades emits what grading made of a pass: passages and pages with verdicts, facts kept, the
// hypothesis.
func (r *run) reportGrades(results []graded) {
	var docs []DocVerdict
	var facts []FactRef
	keptDocs, nDocs, nFacts := 0, 0, 0
	for _, g := range results {
		if g.kind == KindFact {
			nFacts++
			if g.useful {
				facts = append(facts, factRef(g.fact))
			}
			continue
		}
		nDocs++
		if g.useful {
			keptDocs++
		}
		docs = append(docs, docVerdict(g))
	}
	summary := fmt.Sprintf("Kept %d of %d passages", keptDocs, nDocs)
	if nFacts > 0 {
		summary += fmt.Sprintf(" and %d of %d graph facts", len(facts), nFacts)
	}
	r.rec.send(Event{Type: EventDocuments, Node: NodeGrade, Summary: summary, Docs: docs})
	if len(facts) > 0 {
		r.rec.send(Event{Type: EventFacts, Node: NodeGrade, Summary: strconv.Itoa(len(facts)) + " graph facts used", Facts: facts})
	}
	if r.st.hypothesis != "" {
		r.rec.send(Event{Type: EventHypothesis, Node: NodeGrade, Summary: clip(r.st.hypothesis, 200), Hypothesis: r.st.hypothesis})
	}
	r.finished(NodeGrade, summary)
}

func docVerdict(g graded) DocVerdict {
	if g.kind == KindWeb {
		return DocVerdict{ID: g.web.URL, DocName: g.web.Title, Snippet: clip(g.web.Snippet, 240), Useful: g.useful,
			Reason: g.reason, Web: true, URL: g.web.URL}
	}
	return DocVerdict{ID: g.chunk.ID, DocName: docName(g.chunk), Snippet: clip(g.chunk.Text, 240), Useful: g.useful, Reason: g.reason}
}
