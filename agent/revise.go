package agent

import (
	"context"
	"fmt"
	"strings"
)

// revise rewrites the answer down to what its sources support, once the retrieval budget is spent.
func (r *run) revise(ctx context.Context) error {
	r.resetAnswer("The answer is being revised to what the sources support")
	r.started(NodeRevise, "Keeping only what the sources support")
	r.round()
	r.st.revisions++
	var b strings.Builder
	b.WriteString("Question: " + r.st.question + "\n\n")
	writeSources(&b, r.st.sources)
	b.WriteString("\nDraft answer:\n<answer>\n" + quote(r.st.answer) + "\n</answer>\n")
	var notes strings.Builder
	writeList(&notes, "Unsupported claims", r.st.unsupported)
	writeNote(&notes, "Critique", r.st.critique)
	writeNotes(&b, notes.String())
	text, err := r.stream(ctx, request("revise", promptRevise, b.String()))
	if err != nil {
		return fmt.Errorf("agent: revise: %w", err)
	}
	r.setAnswer(text, r.st.sources)
	r.finished(NodeRevise, "Answer revised")
	r.matchSources()
	return nil
}
