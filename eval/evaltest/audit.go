package evaltest

import (
	"strings"

	"github.com/hopwise/hopwise/llm/llmtest"
)

// claims splits an answer into its units, leaving out what the answer says about the sources themselves
// ("The sources do not ..."), which is no claim about the world.
func claims(answer string) []string {
	var out []string
	for _, u := range units(answer) {
		if strings.HasPrefix(strings.TrimSpace(stripCitations(u)), "The sources do not") {
			continue
		}
		out = append(out, u)
	}
	return out
}

// supported reports a claim every word of which the sources contain.
func supported(claim, sources string) bool {
	ts := passageTerms(stripCitations(claim))
	return len(covered(ts, sources)) == len(ts)
}

func sourcesText(p prompt) string {
	var b strings.Builder
	for _, it := range p.items() {
		b.WriteString(it.text + "\n")
	}
	return b.String()
}

func audit(p prompt) llmtest.Reply {
	answer, src := p.answer(), sourcesText(p)
	cs := claims(answer)
	unsupported := []string{}
	for _, c := range cs {
		if !supported(c, src) {
			unsupported = append(unsupported, stripCitations(c))
		}
	}
	grounded := "partially"
	switch {
	case len(unsupported) == 0:
		grounded = "fully"
	case len(unsupported) == len(cs):
		grounded = "not"
	}
	qt := terms(p.line("Question: "))
	_, content := split(qt)
	missing := minus(qt, covered(qt, stripCitations(answer)))
	missingNames, _ := split(missing)
	want := expects(p.line("Question: "))
	gives := want.givenBy(strings.Join(cs, " "))
	useful := len(cs) > 0 && len(missingNames) == 0 && (len(content) == 0 || len(covered(content, answer)) > 0) && gives
	critique := ""
	switch {
	case len(cs) == 0:
		critique = "The answer does not answer the question; it needs what the documents say about " + strings.Join(texts(qt), ", ") + "."
	case !gives:
		critique = "The answer does not give the " + want.what + " asked for."
	case !useful:
		critique = "The answer does not say anything about " + strings.Join(texts(missing), ", ") + "."
	}
	return jsonReply(map[string]any{"grounded": grounded, "unsupported": unsupported, "useful": useful, "critique": critique})
}

// revise keeps the supported units of the draft with their citations and says what is left open.
func revise(p prompt) llmtest.Reply {
	src := sourcesText(p)
	var kept []string
	for _, c := range claims(p.answer()) {
		if supported(c, src) {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return llmtest.Reply{Content: refusal(nil)}
	}
	return llmtest.Reply{Content: strings.Join(kept, " ") + " The sources do not support more than this."}
}

// plan asks for the question's words no source found, for the names the passage that best covers the
// question introduces, and for what the critique names; never a query asked before.
func plan(p prompt) llmtest.Reply {
	q := p.line("Question: ")
	qt := terms(q)
	names, _ := split(qt)
	asked := map[string]bool{}
	for _, a := range p.list("Queries already asked") {
		asked[normalize(a)] = true
	}
	var found []string
	var best string
	bestWeight := 0
	for _, it := range p.items() {
		found = append(found, it.text)
		for _, ps := range read(it) {
			if w := weightOf(covered(qt, ps.context+"\n"+ps.text)); w > bestWeight {
				best, bestWeight = ps.text, w
			}
		}
	}
	var queries []string
	add := func(ts []term) {
		s := strings.Join(texts(ts), " ")
		if s != "" && !asked[normalize(s)] && len(queries) < 3 {
			asked[normalize(s)] = true
			queries = append(queries, s)
		}
	}
	missing := minus(qt, covered(qt, strings.Join(found, "\n")))
	if mn, _ := split(missing); len(mn) == 0 && len(missing) > 0 {
		missing = append(missing, names...)
	}
	add(missing)
	if best != "" {
		introduced, _ := split(minus(passageTerms(best), qt))
		add(append(introduced, minus(names, covered(names, best))...))
	}
	if c := p.line("Critique of the last answer: "); c != "" {
		add(minus(terms(c), terms("answer documents sources say anything question needs give asked")))
	}
	return jsonReply(map[string]any{"queries": append([]string{}, queries...)})
}

func normalize(q string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.Trim(q, " ?.!"))), " ")
}
