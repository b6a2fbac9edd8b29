package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hopwise/hopwise/llm"
)

// Run answers one question. Events are delivered to emit (which may be nil) one at a time, in order.
// The run ends within the configured caps; when the caller's context ends it stops every model call in
// flight and returns the context's error with what it had so far.
func (a *Agent) Run(ctx context.Context, in Input, emit func(Event)) (Result, error) {
	if strings.TrimSpace(in.Question) == "" {
		return Result{}, ErrEmptyQuestion
	}
	r := a.newRun(in, emit)
	if a.cfg.Profile == ProfileLocal {
		return r.execute(ctx, r.localLoop)
	}
	return r.execute(ctx, r.loop)
}

// ErrEmptyQuestion is returned for a question with no text.
var ErrEmptyQuestion = errors.New("agent: empty question")

func (a *Agent) newRun(in Input, emit func(Event)) *run {
	q := strings.TrimSpace(in.Question)
	return &run{
		a: a, cfg: a.cfg, in: in, rec: &recorder{emit: emit}, meter: llm.NewMeter(), start: time.Now(),
		st: state{question: q, queries: []string{q}, keptKeys: map[string]bool{}},
	}
}

// execute runs body under the run's meter, its line for the model and its wall-time cap (not counting the
// time in line, see startClock) and turns its outcome into a Result.
func (r *run) execute(parent context.Context, body func(context.Context) error) (Result, error) {
	ctx, cancel := context.WithCancelCause(llm.WithLine(llm.WithMeter(parent, r.meter), llm.NewLine(r.placed)))
	defer cancel(nil)
	r.startClock(cancel)
	defer r.end()
	err := body(ctx)
	if err == nil && parent.Err() != nil {
		err = parent.Err() // a step that tolerates failures (web search, HyDE) may have hidden the cancellation
	}
	if err != nil && parent.Err() == nil && ctx.Err() != nil {
		r.a.log.Info("agent: run out of time", "question", r.st.question, "after", time.Since(r.start))
		r.rec.send(Event{Type: EventError, Error: "the time allowed for one question ran out; ending with what was found"})
		r.closeWithoutCalls()
		err = nil
	}
	if err != nil {
		if parent.Err() != nil {
			err = fmt.Errorf("agent: run stopped: %w", context.Cause(parent))
		}
		r.rec.send(Event{Type: EventError, Error: err.Error()})
		return r.result(), err
	}
	r.showFinalAnswer()
	u := r.usage()
	r.rec.send(Event{Type: EventUsage, Summary: usageSummary(u), Usage: &u})
	final := r.result()
	final.Usage = u
	r.rec.send(Event{Type: EventAnswer, Summary: answerSummary(final), Result: &final})
	res := final // the caller's copy also holds the answer event in its trace
	res.Trace = r.rec.events()
	return res, nil
}

// loop is the research loop of DESIGN.md.
func (r *run) loop(ctx context.Context) error {
	if len(r.in.History) > 0 {
		if err := r.condense(ctx); err != nil {
			return err
		}
	}
	items, retrieve, err := r.firstPass(ctx)
	if err != nil {
		return err
	}
	if !retrieve && r.st.answer != "" {
		return nil // answered about the whole collection
	}
	if !retrieve {
		return r.direct(ctx)
	}
	for {
		r.st.loops++
		kept, err := r.grade(ctx, items)
		if err != nil {
			return err
		}
		if len(r.st.kept) > 0 && (kept > 0 || r.st.answer == "") && r.callsLeft() > 0 {
			if err := r.generate(ctx); err != nil {
				return err
			}
			if err := r.audit(ctx); err != nil {
				return err
			}
			if r.done() {
				return nil
			}
		}
		if items, err = r.plan(ctx); err != nil {
			return err
		}
		if len(items) == 0 {
			return r.finish(ctx)
		}
	}
}

// done reports an answer that needs no more work: approved, or not audited (audits off or impossible).
func (r *run) done() bool {
	return r.st.answer != "" && (!r.st.audited || r.st.approved())
}

// firstPass decides whether to retrieve while retrieval for the question already runs (discarded when
// the decision is no), then adds the expansion queries the decision wrote.
func (r *run) firstPass(ctx context.Context) ([]source, bool, error) {
	q, depth := r.st.question, r.depth()
	specCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		f   found
		err error
	}
	spec := make(chan outcome, 1)
	go func() {
		hy, _ := r.hyde(specCtx, []string{q})
		f, err := r.lookup(specCtx, []string{q}, hy, depth)
		spec <- outcome{f, err}
	}()
	d, err := r.decide(ctx)
	if err == nil && d.Retrieve {
		var answered bool
		if answered, err = r.wholeCollection(ctx, d); answered {
			d.Retrieve = false
		}
	}
	if err != nil || !d.Retrieve {
		cancel()
		<-spec
		return nil, false, err
	}
	r.started(NodeRetrieve, "Searching your documents and their knowledge graph")
	got := <-spec
	if got.err != nil {
		return nil, false, got.err
	}
	f := got.f
	if exp := r.st.addQueries(d.Queries); len(exp) > 0 {
		r.rec.send(Event{Type: EventQueries, Node: NodeDecide, Summary: "Also searching for: " + clip(strings.Join(exp, "; "), 200), Queries: exp})
		more, err := r.lookup(ctx, exp, nil, depth)
		if err != nil {
			return nil, false, err
		}
		f = merge(f, more, depth)
	}
	items := r.fresh(ctx, f, q)
	r.finished(NodeRetrieve, retrieveSummary(r.st.queries, items, f.bridges))
	return items, true, nil
}

// plan prepares the next pass when the budget allows one: new sub-questions searched in the documents
// and, when local evidence stays weak (nothing useful yet, or this is the last pass), the web searched
// with the question at the same time. No sources means the research is over.
func (r *run) plan(ctx context.Context) ([]source, error) {
	if r.st.loops >= r.cfg.MaxLoops {
		return nil, nil
	}
	left := r.callsLeft()
	if r.st.answer != "" {
		left -= r.finishCalls()
	}
	weak := len(r.st.kept) == 0 || r.st.loops+1 == r.cfg.MaxLoops
	useWeb := r.cfg.Techniques.WebFallback && !r.st.webTried && weak && left >= passCalls-1
	transform := left >= passCalls
	if !useWeb && !transform {
		return nil, nil
	}
	var (
		web []source
		wg  sync.WaitGroup
	)
	if useWeb {
		r.st.webTried = true
		wg.Go(func() { web = r.searchWeb(ctx) })
	}
	var queries []string
	var err error
	if transform {
		queries, err = r.transform(ctx)
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	var items []source
	if len(queries) > 0 {
		hy, calls := r.hyde(ctx, queries)
		if calls > 0 {
			r.round()
		}
		r.started(NodeRetrieve, "Searching for the missing pieces")
		f, err := r.lookup(ctx, queries, hy, r.depth())
		if err != nil {
			return nil, err
		}
		items = r.fresh(ctx, f, strings.Join(queries, "; "))
		r.finished(NodeRetrieve, retrieveSummary(queries, items, f.bridges))
	}
	return append(items, web...), nil
}

// finish ends a run whose research is over: an approved answer stands; a partly supported one is revised
// down to its supported part; with nothing supported, the answer says honestly what could not be found.
func (r *run) finish(ctx context.Context) error {
	if r.st.answer == "" {
		r.notFound()
		return nil
	}
	if r.done() {
		return nil
	}
	for r.st.grounded == GroundedPartially && r.st.revisions < r.cfg.MaxRevisions && r.callsLeft() > 0 {
		if err := r.revise(ctx); err != nil {
			return err
		}
		if err := r.audit(ctx); err != nil {
			return err
		}
		if !r.st.audited {
			break
		}
	}
	if r.st.audited && r.st.grounded == GroundedNot {
		r.notFound()
	}
	return nil
}

// closeWithoutCalls ends a run whose time ran out: the last answer stands, or an honest "not found".
func (r *run) closeWithoutCalls() {
	if r.st.answer == "" || (r.st.audited && r.st.grounded == GroundedNot) {
		r.notFound()
	}
}

// notFound replaces the answer with an honest statement of what the sources do not say. It is written
// here, not by the model, so that it can never contain a guess.
func (r *run) notFound() {
	var b strings.Builder
	if r.st.webTried {
		b.WriteString("I could not find the answer to this question in your documents or in the web search results, so I will not guess.")
	} else {
		b.WriteString("Your documents do not cover this question, so I cannot answer it from them and will not guess.")
	}
	if m := strings.TrimSpace(r.st.missing); m != "" {
		b.WriteString("\n\nWhat is missing: " + m)
	}
	r.setAnswer(b.String(), nil)
	r.st.notFound = true
	r.rec.send(Event{Type: EventNodeFinished, Node: NodeNotFound, Summary: "No supported answer was found"})
}

// showFinalAnswer makes the streamed text end as the final answer: when they differ (a refusal replaced
// a draft, time ran out mid-stream), the stream restarts with the final text.
func (r *run) showFinalAnswer() {
	if oneLine(r.st.shown.String()) == oneLine(r.st.answer) {
		return
	}
	r.resetAnswer("The final answer follows")
	r.emitToken(r.st.answer)
}

func (r *run) result() Result {
	res := Result{
		Question: r.in.Question, Standalone: r.st.question, Answer: r.st.answer,
		Citations: citations(r.st.answer, r.st.sources),
		NotFound:  r.st.notFound, UsedWeb: r.st.webTried, Direct: r.st.direct,
		Attributed: r.st.attributed, Unmatched: r.st.unmatched,
		Usage: r.usage(), Trace: r.rec.events(),
	}
	if r.st.audited {
		res.Grounded, res.Useful = r.st.grounded, r.st.useful
		// Hopwise's own check by wording outranks a model's "fully": small models approve anything.
		if res.Grounded == GroundedFully && len(r.st.unmatched) > 0 {
			res.Grounded = GroundedPartially
		}
	}
	return res
}

func usageSummary(u Usage) string {
	return fmt.Sprintf("%d model calls in %d rounds, %d tokens, %s", u.Calls, u.Rounds,
		u.PromptTokens+u.CompletionTokens, u.Elapsed.Round(100*time.Millisecond))
}

func answerSummary(res Result) string {
	switch {
	case res.Direct:
		return "Answered from general knowledge"
	case res.NotFound:
		return "No supported answer was found"
	case res.Grounded == GroundedFully && res.Useful:
		return fmt.Sprintf("Answered with %d sources, every claim supported", len(res.Citations))
	case res.Grounded == "":
		return fmt.Sprintf("Answered with %d sources (not checked)", len(res.Citations))
	default:
		return fmt.Sprintf("Best supported answer, with %d sources; it may be incomplete", len(res.Citations))
	}
}
