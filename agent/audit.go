package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/llm"
)

// auditVerdict judges grounding and usefulness in one call; the findings come before the verdicts that
// follow from them (reasons first: small models judge better once they have written why).
type auditVerdict struct {
	Unsupported []string `json:"unsupported" description:"claims the sources do not support; empty if none" maxItems:"5" maxLength:"200"`
	Critique    string   `json:"critique" description:"what is wrong or missing, one sentence; empty if nothing" maxLength:"300"`
	Grounded    string   `json:"grounded" enum:"fully,partially,not" description:"whether the sources support every claim"`
	Useful      bool     `json:"useful" description:"the answer answers the question"`
}

func (v auditVerdict) Validate() error {
	switch v.Grounded {
	case GroundedFully, GroundedPartially, GroundedNot:
		return nil
	}
	return fmt.Errorf("grounded is %q: want fully, partially or not", v.Grounded)
}

// audit checks the answer against its sources. Without budget, with audits off, or when the verdict stays
// unreadable, the answer stays unaudited.
func (r *run) audit(ctx context.Context) error {
	if !r.cfg.Techniques.Audit || r.callsLeft() == 0 {
		return nil
	}
	r.started(NodeAudit, "Checking the answer against the sources")
	r.round()
	var b strings.Builder
	b.WriteString("Question: " + r.st.question + "\n\n")
	writeSources(&b, r.st.sources)
	b.WriteString("\nDraft answer:\n<answer>\n" + quote(r.st.answer) + "\n</answer>\n")
	v, err := llm.Structured[auditVerdict](ctx, r.a.llm, request("audit", promptAudit, b.String()))
	if errors.Is(err, llm.ErrInvalidOutput) {
		r.a.log.Warn("agent: audit answer unreadable", "err", err)
		r.rec.send(Event{Type: EventError, Node: NodeAudit, Error: "the check of the answer was unreadable; the answer is unchecked"})
		r.finished(NodeAudit, "The answer could not be checked")
		return nil
	}
	if err != nil {
		return fmt.Errorf("agent: audit: %w", err)
	}
	r.st.audited, r.st.grounded, r.st.useful = true, v.Grounded, v.Useful
	r.st.unsupported, r.st.critique = nonEmpty(v.Unsupported), strings.TrimSpace(v.Critique)
	r.finished(NodeAudit, auditSummary(v))
	return nil
}

func auditSummary(v auditVerdict) string {
	var parts []string
	switch v.Grounded {
	case GroundedFully:
		parts = append(parts, "Every claim is supported by the sources")
	case GroundedPartially:
		parts = append(parts, fmt.Sprintf("%d claims are not supported by the sources", max(len(nonEmpty(v.Unsupported)), 1)))
	default:
		parts = append(parts, "The answer is not supported by the sources")
	}
	if v.Useful {
		parts = append(parts, "it answers the question")
	} else {
		parts = append(parts, "it does not fully answer the question")
	}
	s := strings.Join(parts, "; ")
	if c := strings.TrimSpace(v.Critique); c != "" && !(v.Useful && v.Grounded == GroundedFully) {
		s += ": " + clip(c, 160)
	}
	return s
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
