package agent

import (
	"context"
	"fmt"
	"strings"
)

// generate streams an answer written from every kept source, numbered in the order they were kept.
func (r *run) generate(ctx context.Context) error {
	srcs := r.st.kept[:len(r.st.kept):len(r.st.kept)]
	r.resetAnswer("A new answer follows")
	r.started(NodeGenerate, fmt.Sprintf("Writing the answer from %d sources", len(srcs)))
	r.round()
	var b strings.Builder
	b.WriteString("Question: " + r.st.question + "\n\n")
	writeSources(&b, srcs)
	text, err := r.stream(ctx, request("generate", promptGenerate, b.String()))
	if err != nil {
		return fmt.Errorf("agent: generate: %w", err)
	}
	r.setAnswer(text, srcs)
	r.finished(NodeGenerate, "Answer written")
	return nil
}

// setAnswer replaces the answer; the audit of the previous one no longer applies.
func (r *run) setAnswer(text string, srcs []source) {
	r.st.answer = strings.TrimSpace(text)
	r.st.sources = srcs
	r.st.audited, r.st.grounded, r.st.useful = false, "", false
	r.st.unsupported, r.st.critique = nil, ""
}
