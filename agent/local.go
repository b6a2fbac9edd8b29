package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/hopwise/hopwise/llm"
)

// ProfileLocal is the loop for a small model on a few CPU cores (the local Qwen2.5-1.5B): fewer
// sequential calls, each short. Measured on the dev set with that model, the full loop's separate judging
// calls cost more than they brought: grading set aside passages that answered, the audit let inventions
// through, and a question took up to three minutes (docs/benchmarks.md). Here one structured call per
// pass writes the facts it uses, its reasoning, whether the sources answer, and only then the answer
// (reasons before the verdict), with searches for what is missing when it does not answer; Hopwise's own
// claim check (claim_check.go) decides whether the answer stands. With nothing that stands, one more pass
// runs those searches, and then the run refuses. There is no separate planning call: the second answer
// call's prompt starts with the first one's (instructions, the first pass's sources), so the server, which
// reuses the longest common prefix with its previous prompt, only reads the new sources and the question.
const ProfileLocal = "local"

var (
	//go:embed prompts/local_answer.txt
	promptLocalAnswer string
)

// Caps of the local profile: sources shown to one answer call (two passes of K passages and their graph
// facts; the second pass appends to the first, whose part the server has cached), facts listed with an answer,
// lines of the sources repeated before the question (key_lines.go).
const (
	localSources  = 24
	localFacts    = 4
	localKeyLines = 4
	localRetries  = 1 // answer calls made again after the claim check set an answer aside, per question
)

// compactAnswer is the local profile's answer: the facts and the reasoning come before the verdict and the
// answer, so that a small model has written out what it relies on before it decides.
type compactAnswer struct {
	Facts      []string `json:"facts" description:"facts from the sources that answer the question, each ending with its source number [n]; empty if none" maxItems:"4" maxLength:"200"`
	Reasoning  string   `json:"reasoning" description:"how the facts answer the question; the missing fact, if any" maxLength:"600"`
	Answerable bool     `json:"answerable" description:"true only if the facts answer the question"`
	Answer     string   `json:"answer" description:"the direct answer, then its deciding facts with [n]; empty if not answerable" maxLength:"400"`
	Search     []string `json:"search" description:"when not answerable: up to 2 short search queries for the missing facts; else empty" maxItems:"2" maxLength:"100"`
}

// localLoop is the research loop of the local profile: search (hybrid and graph, no grading call), one
// answer call, the claim check; at most MaxLoops passes.
func (r *run) localLoop(ctx context.Context) error {
	if len(r.in.History) > 0 {
		if err := r.condense(ctx); err != nil {
			return err
		}
	}
	queries := []string{r.st.question}
	retries := localRetries
	for {
		r.st.loops++
		r.started(NodeRetrieve, "Searching your documents and their knowledge graph")
		f, err := r.lookup(ctx, queries, nil, r.depth())
		if err != nil {
			return err
		}
		items := r.fresh(ctx, f, strings.Join(queries, "; "))
		r.finished(NodeRetrieve, retrieveSummary(queries, items, f.bridges))
		var next []string
		if n := r.st.keep(items); n > 0 && r.callsLeft() > 0 {
			ok, search, err := r.answerCompact(ctx, &retries)
			if err != nil || ok {
				return err
			}
			next = search
		}
		if r.st.loops >= r.cfg.MaxLoops || r.callsLeft() < 1 {
			break
		}
		if queries = r.nextSearches(next); len(queries) == 0 {
			break
		}
	}
	r.notFound()
	return nil
}

// compactSources are the kept sources one answer call reads, in the order they were kept: a later pass
// appends to the earlier pass's prompt, so the server's prompt cache holds everything before the new part.
func (r *run) compactSources() []source {
	srcs := r.st.kept
	if len(srcs) > localSources {
		srcs = srcs[:localSources]
	}
	return srcs[:len(srcs):len(srcs)]
}

// answerCompact asks for an answer from the kept sources and keeps it only if the model found the
// sources answer and the claim check passes. An answer the claim check sets aside is asked for once more
// (once a question: retries counts down), with the sentences set aside named after the question: the
// prompt is the first one's with lines added, so the server reads only those, and the 1.5B model, told
// that "Lufthansa has the IATA code AY" is not what the sources say, reads the registry's rows again. It
// reports whether an answer now stands and, when none does, the searches the model asked for.
func (r *run) answerCompact(ctx context.Context, retries *int) (bool, []string, error) {
	srcs := r.compactSources()
	r.started(NodeGenerate, fmt.Sprintf("Writing the answer from %d sources", len(srcs)))
	var b strings.Builder
	// Sources first and the question last: the calls of one question share the longest prefix. Asked
	// before the sources as well, the 1.5B model read the Series B passage right (F09), but it also
	// answered the question CI asks of three documents that cannot answer it ("From which gate did my
	// Lufthansa flight ... leave last Friday?": "The flight left at the airport in Munich"), and listed
	// every tier for the reference question (docs/benchmarks.md, session 7).
	writeSources(&b, srcs)
	writeKeyLines(&b, keyLines(r.st.question, srcs, localKeyLines))
	// the case's value may be a row or fact below the four key lines (the policy's sentences hold more of
	// "May an employee book business class from Munich to Dubai?" than Dubai's row does)
	cmp := comparisons(r.st.question, keyLines(r.st.question, srcs, localSources), srcs)
	writeComparisons(&b, lineTexts(cmp))
	b.WriteString("\nQuestion: " + r.st.question + "\n")
	var searches []string
	for {
		ok, a, bad, err := r.compactAttempt(ctx, b.String(), srcs, cmp)
		if err != nil || ok {
			return ok, nil, err
		}
		if a != nil {
			searches = append(searches, a.Search...)
		}
		if bad.text == "" || *retries < 1 || r.callsLeft() < 1 {
			return false, searches, nil
		}
		*retries--
		r.started(NodeGenerate, "Asking again: "+bad.why)
		writeNote(&b, "Set aside, since "+bad.why, bad.text)
		b.WriteString("Answer the question again from the sources; set answerable to false if they do not answer it.\n")
	}
}

// setAside is an answer the checks did not let stand: its sentences and why, in words the model reads
// when it is asked again ("the question asks for a number and the answer gives none").
type setAside struct{ text, why string }

// compactAttempt makes one answer call with the prompt user. It reports whether the answer stands (and
// is now the run's), the model's reply (nil when unreadable), and what the checks set aside. An answer
// that stands is listed with the rule line it rests on when the comparisons cmp found it (decidingLine).
func (r *run) compactAttempt(ctx context.Context, user string, srcs []source, cmp []comparison) (bool, *compactAnswer, setAside, error) {
	r.round()
	a, err := llm.Structured[compactAnswer](ctx, r.a.llm, request("answer", promptLocalAnswer, user))
	if errors.Is(err, llm.ErrInvalidOutput) {
		r.a.log.Warn("agent: answer unreadable", "err", err)
		r.rec.send(Event{Type: EventError, Node: NodeGenerate, Error: "the answer was unreadable"})
		r.finished(NodeGenerate, "No answer")
		return false, nil, setAside{}, nil
	}
	if err != nil {
		return false, nil, setAside{}, fmt.Errorf("agent: answer: %w", err)
	}
	r.st.hypothesis = strings.TrimSpace(a.Reasoning)
	answer := strings.TrimSpace(scrubInternal(unfence(a.Answer)))
	if !a.Answerable || answer == "" || refusesItself(answer) {
		r.st.critique = "The sources found so far do not answer the question."
		r.finished(NodeGenerate, "The sources found so far do not answer the question")
		return false, &a, setAside{}, nil
	}
	var facts []string
	dropped := 0
	for _, f := range nonEmpty(a.Facts) {
		f = oneLine(scrubInternal(unfence(f)))
		if len(strings.Fields(f)) < 3 || len(facts) == localFacts { // "reasoning": a field name, not a fact
			continue
		}
		if len(unsupportedClaims(f, "", "", srcs)) > 0 {
			dropped++
			continue
		}
		facts = append(facts, f)
	}
	linking := linkingFacts(r.st.question, srcs, facts)
	// The reasoning's sentences that stand on the sources by themselves back the answer as listed facts do:
	// the model often writes the deciding step ("5,921 km falls under flights over 3,500 km: 600 EUR") there
	// and not among its facts.
	var reasons []string
	for _, sent := range sentences(a.Reasoning) {
		if sent = oneLine(sent); len(anchors(sent)) >= 2 && len(unsupportedClaims(sent, "", "", srcs)) == 0 {
			reasons = append(reasons, sent)
		}
	}
	// The step Hopwise computed from the sources (the case's value meets the condition of the rule line
	// that gives the answer's amount) backs the answer as the model's own reasoning would, and is listed
	// with it when the answer and its facts leave the threshold out.
	var steps []string
	// The reasoning is not shown, so a threshold it states does not count as stated (CI at d9e1c4d: the
	// answer "600 EUR [2]" came without the step).
	if step := decidingLine(answer, strings.Join(slices.Concat(facts, linking), "\n"), cmp); step != "" {
		steps = append(steps, step)
	}
	if bad := unsupportedClaims(answer, r.st.question, strings.Join(slices.Concat(facts, linking, reasons, steps), "\n"), srcs); len(bad) > 0 {
		r.st.unsupported = bad
		r.st.critique = "The answer joins things that no single source states together."
		r.rec.send(Event{Type: EventNodeFinished, Node: NodeAudit, Summary: "Set aside: no single source names together what this answer joins: " + clip(strings.Join(bad, " "), 200)})
		r.finished(NodeGenerate, "The answer did not pass the check against the sources")
		return false, &a, setAside{text: strings.Join(bad, " "), why: "no source states it"}, nil
	}
	if asksQuantity(r.st.question) && !givesQuantity(answer) {
		r.st.critique = "The question asks for a number and the answer gives none."
		r.rec.send(Event{Type: EventNodeFinished, Node: NodeAudit, Summary: "Set aside: the question asks for a number and the answer gives none: " + clip(answer, 200)})
		r.finished(NodeGenerate, "The answer did not give the number asked for")
		return false, &a, setAside{text: answer, why: "the question asks for a number and it gives none"}, nil
	}
	if why := contradictedYes(r.st.question, answer, cmp); why != "" {
		r.st.critique = "The answer says yes where the sources' condition is not met."
		r.rec.send(Event{Type: EventNodeFinished, Node: NodeAudit, Summary: "Set aside: the answer says yes, but " + clip(why, 200)})
		r.finished(NodeGenerate, "The answer went against the comparison with the sources' condition")
		return false, &a, setAside{text: answer, why: why}, nil
	}
	// The model's own answer and facts are matched to their sources by wording when it cited none, before
	// the linking facts, which carry their markers, are listed with them.
	text := answer
	if len(facts) > 0 {
		text += "\n\n" + "- " + strings.Join(facts, "\n- ")
	}
	r.setAnswer(text, srcs)
	r.attributeSources()
	linking = append(linking, steps...)
	if len(linking) > 0 {
		sep := "\n- "
		if len(facts) == 0 {
			sep = "\n\n- "
		}
		r.st.answer += sep + strings.Join(linking, "\n- ")
	}
	r.emitToken(r.st.answer)
	r.finished(NodeGenerate, "Answer written")
	r.st.audited, r.st.useful, r.st.grounded = true, true, GroundedFully
	if dropped > 0 || len(r.st.unmatched) > 0 {
		r.st.grounded = GroundedPartially
	}
	r.finished(NodeAudit, "Checked: every name and number of the answer appears together in one source")
	return true, &a, setAside{}, nil
}

// asksQuantity reports a question that asks for an amount, a count, a distance or a duration: "how much",
// "how many", "how far", "how long", "what is the most (least, maximum, minimum) ...". The 1.5B model
// answered "what is the most an airline must pay a passenger bumped ..." with the sentence saying US rules
// require no cash for delays, every word of it in a source.
func asksQuantity(question string) bool {
	words := strings.Fields(normSource(question))
	for i, w := range words[:max(len(words)-1, 0)] {
		next := words[i+1]
		switch {
		case w == "how" && slices.Contains([]string{"much", "many", "far", "long"}, next):
			return true
		case w == "the" && slices.Contains([]string{"most", "least", "maximum", "minimum", "highest", "lowest"}, next) &&
			i > 0 && slices.Contains([]string{"is", "was", "are"}, words[i-1]) && slices.Contains(words[:i], "what"):
			return true
		}
	}
	return false
}

// givesQuantity reports an answer that holds a number, or says the amount is nothing.
func givesQuantity(answer string) bool {
	for _, w := range strings.Fields(normSource(citeMarker.ReplaceAllString(answer, " "))) {
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 || slices.Contains([]string{"nothing", "none", "zero", "no", "one", "two",
			"three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve", "twenty", "hundred", "thousand"}, w) {
			return true
		}
	}
	return false
}

// nextSearches are the searches of the next pass: those the answer call asked for and no pass made yet.
func (r *run) nextSearches(asked []string) []string {
	r.started(NodeTransform, "Working out what is still missing")
	return r.acceptSearches(asked)
}

// refusesItself reports an answer text that says the sources do not answer (a model that marks itself
// answerable and then writes "The documents do not say ...").
func refusesItself(answer string) bool {
	first := strings.ToLower(answer)
	if i := strings.IndexAny(first, ".!?\n"); i >= 0 {
		first = first[:i]
	}
	for _, p := range []string{"do not say", "does not say", "do not mention", "does not mention", "do not contain",
		"does not contain", "not provided", "no information", "not specified", "not mentioned", "cannot be determined",
		"do not provide", "does not provide", "not available", "unknown"} {
		if strings.Contains(first, p) {
			return true
		}
	}
	return false
}

// linkingFacts are the graph facts among the sources that join two things the question names ("Munich
// DISTANCE_FROM Delhi" to a question about a flight from Delhi to Munich), listed with the answer as what
// it rests on when the model did not list them itself; at most two.
func linkingFacts(question string, srcs []source, listed []string) []string {
	subject := anchors(question)
	have := normSource(strings.Join(listed, "\n"))
	var out []string
	for i, s := range srcs {
		if s.kind != KindFact || len(out) == 2 {
			continue
		}
		norm := normSource(s.text())
		named := 0
		for _, a := range subject {
			if holds(norm, a) {
				named++
			}
		}
		marker := "[" + strconv.Itoa(i+1) + "]"
		if named < 2 || strings.Contains(strings.Join(listed, " "), marker) || strings.Contains(have, norm) {
			continue
		}
		out = append(out, readableFact(s.text())+" "+marker)
	}
	return out
}

// readableFact writes a graph fact's relation type in words: "Munich DISTANCE_FROM Delhi" becomes
// "Munich distance from Delhi".
func readableFact(sentence string) string {
	words := strings.Fields(sentence)
	for i, w := range words {
		if strings.Contains(w, "_") && strings.ToUpper(w) == w {
			words[i] = strings.ToLower(strings.ReplaceAll(w, "_", " "))
		}
	}
	return strings.Join(words, " ")
}
