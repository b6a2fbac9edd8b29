package eval

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
)

// Outcome is one question answered by one pipeline.
type Outcome struct {
	Pipeline string `json:"pipeline"`
	ID       string `json:"id"`
	Category string `json:"category"`
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Verdict
	NotFound bool `json:"not_found"`
	UsedWeb  bool `json:"used_web"` // the web was searched
	// Retrieved lists the documents of the top 5 passages of each retrieval pass; Recall5 is the share of
	// gold documents among them (nil without gold documents).
	Retrieved        []string `json:"retrieved"`
	Recall5          *float64 `json:"recall_at_5"`
	Facts            int      `json:"facts_used"`
	Calls            int      `json:"calls"`
	Rounds           int      `json:"rounds"`
	PromptTokens     int      `json:"prompt_tokens"`
	CompletionTokens int      `json:"completion_tokens"`
	Seconds          float64  `json:"seconds"`
	Error            string   `json:"error,omitempty"`
}

// Progress reports one finished outcome.
type Progress struct {
	Done, Total int
	Outcome     Outcome
}

// Runner runs question sets through pipelines.
type Runner struct {
	// Agent returns the agent for a pipeline's techniques; it is called once per pipeline.
	Agent func(agent.Techniques) *agent.Agent
	// Retriever repeats the naive pipeline's single search to learn what it retrieved: the same store and
	// embedding model the agents use.
	Retriever *graphrag.Retriever
	Workers   int            // questions answered at once (default 1: timings without contention)
	Progress  func(Progress) // called after each outcome, from one goroutine at a time; may be nil
}

type job struct {
	p     Pipeline
	ag    *agent.Agent
	q     Question
	index int
}

// Run answers every question with every pipeline and returns the outcomes, pipeline by pipeline in the
// order given, questions in set order. A failed run is an outcome with Error set (and not correct); only
// the end of ctx stops the evaluation early, returning what was done with ctx's error.
func (r *Runner) Run(ctx context.Context, set []Question, pipelines []Pipeline) ([]Outcome, error) {
	var jobs []job
	for _, p := range pipelines {
		ag := r.Agent(p.Techniques)
		for _, q := range set {
			jobs = append(jobs, job{p: p, ag: ag, q: q, index: len(jobs)})
		}
	}
	out := make([]Outcome, len(jobs))
	done := make([]bool, len(jobs))
	queue := make(chan job)
	var (
		mu       sync.Mutex
		finished int
		wg       sync.WaitGroup
	)
	for range max(r.Workers, 1) {
		wg.Go(func() {
			for j := range queue {
				o := r.answer(ctx, j)
				mu.Lock()
				out[j.index], done[j.index] = o, true
				finished++
				if r.Progress != nil {
					r.Progress(Progress{Done: finished, Total: len(jobs), Outcome: o})
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		var partial []Outcome
		for i, o := range out {
			if done[i] && o.Error == "" {
				partial = append(partial, o)
			}
		}
		return partial, fmt.Errorf("eval: stopped: %w", err)
	}
	return out, nil
}

// answer runs one question through one pipeline and scores it.
func (r *Runner) answer(ctx context.Context, j job) Outcome {
	o := Outcome{Pipeline: j.p.Name, ID: j.q.ID, Category: j.q.Category, Question: j.q.Question}
	start := time.Now()
	in := agent.Input{Question: j.q.Question}
	var (
		res agent.Result
		err error
	)
	if j.p.Naive {
		res, err = j.ag.Naive(ctx, in, nil)
	} else {
		res, err = j.ag.Run(ctx, in, nil)
	}
	o.Seconds = time.Since(start).Seconds()
	if err != nil {
		o.Error = err.Error()
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return o
		}
	}
	o.Answer, o.NotFound, o.UsedWeb = res.Answer, res.NotFound, res.UsedWeb
	o.Verdict = Judge(j.q, res)
	if o.Error != "" {
		o.Correct = false
	}
	u := res.Usage
	o.Calls, o.Rounds, o.PromptTokens, o.CompletionTokens = u.Calls, u.Rounds, u.PromptTokens, u.CompletionTokens
	o.Facts = factsUsed(res.Trace)
	o.Retrieved = passDocuments(res.Trace)
	if j.p.Naive {
		chunks, err := r.Retriever.Search(ctx, []graphrag.Query{{Text: j.q.Question}}, j.ag.Config().K)
		if err != nil && o.Error == "" {
			o.Error = "repeat the naive search: " + err.Error()
		}
		o.Retrieved = chunkDocuments(chunks, recallDepth)
	}
	if rc, ok := recall(j.q.GoldDocs, o.Retrieved); ok {
		o.Recall5 = &rc
	}
	return o
}
