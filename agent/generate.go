package agent

import (
	"context"
	"fmt"
	"strings"
)

// generate streams an answer written from every kept source, numbered in the order they were kept.
func (r *run) generate(ctx context.Context) error { return r.generateWith(ctx, promptGenerate) }

// generateWith is generate with another system prompt.
func (r *run) generateWith(ctx context.Context, system string) error {
	srcs := r.st.kept[:len(r.st.kept):len(r.st.kept)]
	r.resetAnswer("A new answer follows")
	r.started(NodeGenerate, fmt.Sprintf("Writing the answer from %d sources", len(srcs)))
	r.round()
	var b strings.Builder
	b.WriteString("Question: " + r.st.question + "\n\n")
	writeSources(&b, srcs)
	text, err := r.stream(ctx, request("generate", system, b.String()))
	if err != nil {
		return fmt.Errorf("agent: generate: %w", err)
	}
	r.setAnswer(text, srcs)
	r.finished(NodeGenerate, "Answer written")
	r.matchSources()
	return nil
}

// setAnswer replaces the answer; the audit of the previous one no longer applies.
func (r *run) setAnswer(text string, srcs []source) {
	r.st.answer = dropUnknownMarkers(scrubInternal(unfence(text)), len(srcs))
	r.st.sources = srcs
	r.st.audited, r.st.grounded, r.st.useful = false, "", false
	r.st.unsupported, r.st.critique = nil, ""
	r.st.attributed, r.st.unmatched = false, nil
}

// matchSources gives a written answer that cites none of its sources the sources matched by wording,
// and replaces the streamed text by the cited one.
func (r *run) matchSources() {
	before := r.st.answer
	if r.attributeSources() && r.st.answer != before {
		r.resetAnswer("The sources were matched to the answer")
		r.emitToken(r.st.answer)
	}
}

// attributeSources gives the answer, when it cites none of its sources, the sources matched by wording,
// without streaming it; it reports whether it did.
func (r *run) attributeSources() bool {
	at, ok := attribute(r.st.answer, r.st.sources)
	if !ok {
		return false
	}
	r.st.attributed, r.st.unmatched = true, at.unmatched
	r.st.answer = at.answer
	r.rec.send(Event{Type: EventNodeFinished, Node: NodeAttribute, Summary: attributionSummary(at)})
	return true
}

func attributionSummary(at attribution) string {
	s := "The model named no sources, so I matched them to the answer by wording"
	switch {
	case len(at.matched) == 0:
		s = "The model named no sources, and no sentence of the answer matches one by wording"
	case len(at.unmatched) == 0:
		s += "; every statement matches a source."
	default:
		s += "."
	}
	if len(at.unmatched) > 0 {
		quoted := make([]string, 0, 3)
		for _, u := range at.unmatched[:min(len(at.unmatched), 3)] {
			quoted = append(quoted, "“"+clip(u, 120)+"”")
		}
		s += " Not found in the sources: " + strings.Join(quoted, "; ")
		if len(at.unmatched) > 3 {
			s += fmt.Sprintf(" and %d more", len(at.unmatched)-3)
		}
		s += "."
	}
	return s
}
