package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/hopwise/hopwise/agent"
)

// AgentQueries are the searches the agent's own loop wrote for one benchmark question (the sub-questions
// of its later passes and, in the full loop, the decision's expansion queries), recorded once with the chat
// model so that the benchmark's table can be made again without it.
type AgentQueries struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Queries  []string `json:"queries"`
	// Outcome is how the run ended: "searches" (it asked for the searches of its last pass and was stopped
	// there), "answered" (an answer stood before it asked for any) or "not found".
	Outcome string  `json:"outcome"`
	Seconds float64 `json:"seconds"`
}

// Agent query outcomes.
const (
	OutcomeSearches = "searches"
	OutcomeAnswered = "answered"
	OutcomeNotFound = "not found"
)

// LoopQueries runs the agent on question until it has written the searches of its last pass (a run
// searches at most its MaxLoops passes, the first with the question), so the answer call of that pass,
// whose searches nothing would use, is not waited for. It returns every query the loop wrote, in order, or
// the run's error.
func LoopQueries(ctx context.Context, a *agent.Agent, question string) (AgentQueries, error) {
	out := AgentQueries{Question: question}
	start := time.Now()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	passes, stopped := a.Config().MaxLoops, false
	transforms := 0
	res, err := a.Run(runCtx, agent.Input{Question: question}, func(ev agent.Event) {
		if ev.Type != agent.EventQueries || stopped {
			return
		}
		out.Queries = append(out.Queries, ev.Queries...)
		if ev.Node == agent.NodeTransform {
			if transforms++; transforms >= passes-1 {
				stopped = true
				stop()
			}
		}
	})
	out.Seconds = time.Since(start).Round(100 * time.Millisecond).Seconds()
	switch {
	case stopped:
		out.Outcome = OutcomeSearches
	case err != nil:
		return out, fmt.Errorf("eval: the agent on %q: %w", question, err)
	case res.NotFound:
		out.Outcome = OutcomeNotFound
	default:
		out.Outcome = OutcomeAnswered
	}
	if out.Queries == nil {
		out.Queries = []string{}
	}
	return out, nil
}

// RecordAgentQueries returns the agent's queries for every question of b by question ID: those recorded
// in the JSON-lines file path (a missing file holds none), and, for the questions it lacks, those ask
// writes, each appended to path as soon as it is known, so that a stopped or failed run resumes where it
// was (a failed question is not recorded). A line whose question text differs from the benchmark's is
// asked again. progress, when not nil, sees each question asked.
func RecordAgentQueries(ctx context.Context, b *Bench, path string, ask func(context.Context, string) (AgentQueries, error),
	progress func(done, total int, q AgentQueries)) (map[string]AgentQueries, error) {
	have, err := ReadAgentQueries(path)
	if err != nil {
		return nil, err
	}
	var missing []BenchQuestion
	for _, q := range b.Questions {
		if rec, ok := have[q.ID]; !ok || rec.Question != q.Question.Question {
			missing = append(missing, q)
		}
	}
	if len(missing) == 0 {
		return have, nil
	}
	if ask == nil {
		return nil, fmt.Errorf("eval: %s lacks the agent's queries of %d questions and no chat model may write them", path, len(missing))
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("eval: agent queries: %w", err)
	}
	defer f.Close()
	for i, q := range missing {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := ask(ctx, q.Question.Question)
		if err == nil {
			err = ctx.Err() // stopped by the caller: the question's run is not what the loop writes
		}
		if err != nil {
			return nil, fmt.Errorf("%w (%d of %d questions recorded in %s)", err, len(b.Questions)-len(missing)+i, len(b.Questions), path)
		}
		rec.ID = q.ID
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			return nil, fmt.Errorf("eval: agent queries: %w", err)
		}
		have[q.ID] = rec
		if progress != nil {
			progress(i+1, len(missing), rec)
		}
	}
	return have, f.Close()
}

// ReadAgentQueries reads a file of recorded agent queries by question ID; a missing file holds none. A
// later line for the same question replaces an earlier one.
func ReadAgentQueries(path string) (map[string]AgentQueries, error) {
	out := map[string]AgentQueries{}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	err := readJSONLines(path, func(line []byte) error {
		var rec AgentQueries
		if err := json.Unmarshal(line, &rec); err != nil {
			return err
		}
		if rec.ID == "" {
			return errors.New("a recorded question without id")
		}
		out[rec.ID] = rec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
