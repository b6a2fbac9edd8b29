package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/rerank"
	"github.com/hopwise/hopwise/websearch"
)

func (c *cli) askCommand() *cobra.Command {
	var trace, asJSON bool
	cmd := &cobra.Command{
		Use:   "ask QUESTION",
		Short: "answer a question from your documents, with sources",
		Long: `Answer a question from the ingested documents with the agent: the answer streams to stdout, then
its sources. The words of the question need no quotes; flags may come anywhere on the line. With
HOPWISE_URL set (--url) the question goes to that running Hopwise instead, with HOPWISE_TOKEN as its
API token.`,
		Example: `  hopwise ask "How much compensation is due for a delayed flight from Delhi to Munich?"
  hopwise ask Which S-Bahn lines reach the airport? --trace
  hopwise ask --json "Who founded Nexa AI?" | jq -c 'select(.type == "answer")'
  HOPWISE_URL=https://hopwise.example.org HOPWISE_TOKEN=hwt_... hopwise ask "Who founded Nexa AI?"`,
		Args: cobra.MinimumNArgs(1),
	}
	cmd.Flags().BoolVar(&trace, "trace", false, "print the agent's steps (to stderr) while it works")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every event as one JSON line instead of text")
	cfg := c.settings(cmd, storeFlags, modelFlags, agentFlags, remoteFlags)
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, args []string) error {
		question := strings.TrimSpace(strings.Join(args, " "))
		if question == "" {
			return usageError(errors.New("the question is empty"))
		}
		if cfg.RemoteURL != "" {
			return c.printAnswer(trace, asJSON, func(emit func(agent.Event)) (agent.Result, error) {
				return askRemote(ctx, cfg, question, emit)
			})
		}
		a, ag, err := openAgent(ctx, cfg, logger)
		if err != nil {
			return err
		}
		defer a.Close()
		return c.printAnswer(trace, asJSON, func(emit func(agent.Event)) (agent.Result, error) {
			return ag.Run(ctx, agent.Input{Question: question}, emit)
		})
	})
	return cmd
}

// newAgent builds the agent from the app's model, retriever and configuration: web search and reranking
// when configured, the caps, the configured techniques.
// openAgent opens the app and builds its agent, for the commands that answer questions (ask, mcp, serve);
// the caller closes the app.
func openAgent(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*app, *agent.Agent, error) {
	return openAgentWith(ctx, cfg, logger, openApp)
}

// openAgentWith is openAgent with the app opened by open.
func openAgentWith(ctx context.Context, cfg *config.Config, logger *slog.Logger,
	open func(context.Context, *config.Config, *slog.Logger) (*app, error)) (*app, *agent.Agent, error) {
	a, err := open(ctx, cfg, logger)
	if err != nil {
		return nil, nil, err
	}
	ag, err := newAgent(a)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, ag, nil
}

func newAgent(a *app) (*agent.Agent, error) {
	web, err := websearch.New(a.cfg.WebSearch, a.cfg.WebSearchURL, a.cfg.WebSearchAPIKey, nil)
	if err != nil {
		return nil, err
	}
	t, err := configuredTechniques(a.cfg)
	if err != nil {
		return nil, err
	}
	return agentWith(a, web, reranker(a.cfg), t), nil
}

// configuredTechniques are the loop's techniques: all on, HyDE as AGENT_HYDE says, minus AGENT_SKIP.
func configuredTechniques(cfg *config.Config) (agent.Techniques, error) {
	t := agent.DefaultTechniques()
	t.HyDE = cfg.HyDE
	if err := t.Skip(cfg.AgentSkip); err != nil {
		return t, fmt.Errorf("AGENT_SKIP: %w", err)
	}
	return t, nil
}

func reranker(cfg *config.Config) rerank.Reranker {
	if cfg.RerankURL == "" {
		return nil
	}
	return rerank.New(cfg.RerankURL, cfg.RerankModel, cfg.RerankAPIKey)
}

// agentWith builds the agent with the app's model, retriever and caps and the techniques t.
func agentWith(a *app, web websearch.Searcher, rr rerank.Reranker, t agent.Techniques) *agent.Agent {
	revisions := a.cfg.MaxRevisions
	if revisions == 0 {
		revisions = -1 // agent.Config reads 0 as "default"; the configuration's 0 means none
	}
	return agent.New(a.llm, a.retriever, web, rr, agent.Config{
		MaxLoops: a.cfg.MaxLoops, MaxRevisions: revisions, MaxLLMCalls: a.cfg.MaxLLMCalls,
		MaxTokens: a.cfg.MaxTokens, MaxRunTime: a.cfg.MaxRunTime, Techniques: t, Profile: a.cfg.AgentProfile,
	}, a.logger).WithCollection(a.store)
}

// askPrinter streams the answer to out and, with trace, the steps to steps.
type askPrinter struct {
	out, steps io.Writer
	trace      bool
}

func (p *askPrinter) event(ev agent.Event) {
	switch ev.Type {
	case agent.EventToken:
		fmt.Fprint(p.out, ev.Delta)
	case agent.EventAnswerReset:
		fmt.Fprintf(p.out, "\n\n(%s)\n\n", strings.TrimSuffix(ev.Summary, "."))
	case agent.EventError:
		fmt.Fprintln(p.steps, "! "+ev.Error)
	default:
		if p.trace {
			p.step(ev)
		}
	}
}

func (p *askPrinter) step(ev agent.Event) {
	w := p.steps
	switch ev.Type {
	case agent.EventNodeFinished:
		fmt.Fprintf(w, "· %s: %s\n", ev.Node, ev.Summary)
	case agent.EventQueries:
		fmt.Fprintf(w, "    queries: %s\n", strings.Join(ev.Queries, " | "))
	case agent.EventDocuments, agent.EventWeb:
		for _, d := range ev.Docs {
			mark := "✗"
			if d.Useful {
				mark = "✓"
			}
			if ev.Type == agent.EventWeb {
				mark = "↗"
			}
			fmt.Fprintf(w, "    %s %s  %s\n", mark, d.DocName, d.Reason)
		}
	case agent.EventFacts:
		for _, f := range ev.Facts {
			fmt.Fprintf(w, "    fact: %s\n", f.Sentence)
		}
	case agent.EventHypothesis:
		fmt.Fprintf(w, "    hypothesis: %s\n", ev.Hypothesis)
	case agent.EventUsage:
		fmt.Fprintf(w, "· cost: %s\n", ev.Summary)
	}
}

// sources prints what the answer cites and how far it can be trusted.
func (p *askPrinter) sources(res agent.Result) {
	w := p.out
	fmt.Fprintln(w)
	switch {
	case res.Direct:
		fmt.Fprintln(w, "\n(answered from general knowledge; no documents used)")
	case res.NotFound:
		fmt.Fprintln(w, "\n(no supported answer found)")
	case res.Grounded == "":
		fmt.Fprintln(w, "\n(this answer was not checked against its sources)")
	case res.Grounded != agent.GroundedFully || !res.Useful:
		fmt.Fprintln(w, "\n(this answer is only partly supported by the sources, or incomplete)")
	}
	if res.UsedWeb {
		fmt.Fprintln(w, "(the question was sent to the web search provider)")
	}
	if len(res.Citations) == 0 {
		return
	}
	fmt.Fprintln(w, "\nSources:")
	for _, c := range res.Citations {
		switch c.Kind {
		case agent.KindWeb:
			fmt.Fprintf(w, "[%d] web: %s <%s>\n", c.N, c.Title, c.URL)
		case agent.KindFact:
			fmt.Fprintf(w, "[%d] graph fact: %s (from %s)\n", c.N, c.Sentence, c.DocName)
		default:
			where := c.DocName
			if c.Section != "" {
				where += " › " + c.Section
			}
			fmt.Fprintf(w, "[%d] %s: %s\n", c.N, where, c.Snippet)
		}
	}
}
