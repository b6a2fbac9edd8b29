package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hopwise/hopwise/config"
	"github.com/hopwise/hopwise/graphrag"
)

func (c *cli) communitiesCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "communities",
		Short: "recompute the graph's communities and, with --summarize, have the model summarise them",
		Long: `Recompute the communities of the knowledge graph (groups of names more related to each other than to
the rest; no model call) and list them with whether each has a summary. Questions about the whole
collection ("what are the main risks across these documents?") are answered from those summaries.

With --summarize, the model writes a summary for each community that has none yet (the heaviest first, at
most --max): the plan, with the number of model calls and the tokens it should take, is printed before the
first call and must be confirmed unless --yes is given; progress goes to stderr as it runs. Communities
that did not change keep their summaries; after documents are added or deleted only the communities they
changed need new ones. 'hopwise serve' recomputes the communities by itself after ingesting and deleting;
the Graph page has the same summaries as a button.`,
		Example: "  hopwise communities\n  hopwise communities --summarize\n  hopwise communities --summarize --yes --max 20",
		Args:    cobra.NoArgs,
	}
	cfg := c.settings(cmd, storeFlags, modelFlags)
	summarize := cmd.Flags().Bool("summarize", false, "have the model write the missing summaries (asks first)")
	yes := cmd.Flags().BoolP("yes", "y", false, "with --summarize: start without asking")
	most := cmd.Flags().Int("max", graphrag.DefaultMaxSummaries, "with --summarize: most summaries to write in this run")
	cmd.RunE = c.action(cfg, func(ctx context.Context, cfg *config.Config, logger *slog.Logger, _ []string) error {
		if *most < 1 {
			return usageError(errors.New("--max must be at least 1"))
		}
		return communities(ctx, c.e, cfg, logger, communitiesRun{summarize: *summarize, yes: *yes, max: *most})
	})
	return cmd
}

type communitiesRun struct {
	summarize, yes bool
	max            int
}

func communities(ctx context.Context, e *env, cfg *config.Config, logger *slog.Logger, run communitiesRun) error {
	a, err := openStored(ctx, cfg, logger)
	if errors.Is(err, graphrag.ErrNoDimension) {
		fmt.Fprintln(e.stdout, "no communities: the store holds no documents yet")
		return nil
	}
	if err != nil {
		return err
	}
	defer a.Close()
	cs := graphrag.NewCommunities(a.store, a.llm, logger)
	counts, err := cs.Refresh(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d communities, %d with a summary\n", counts.Communities, counts.Summarized)
	if !run.summarize {
		list, err := cs.List(ctx)
		if err != nil {
			return err
		}
		printCommunities(e.stdout, list)
		return nil
	}
	plan, err := cs.Plan(ctx, run.max)
	if err != nil {
		return err
	}
	if plan.Calls == 0 {
		fmt.Fprintln(e.stdout, "every community has a summary: nothing to do")
		return nil
	}
	fmt.Fprintln(e.stdout, planText(plan, cfg.LLMModel))
	if !run.yes && !confirm(e, "Write them? [y/N] ") {
		fmt.Fprintln(e.stdout, "nothing written")
		return nil
	}
	st, err := cs.Summarize(ctx, plan, func(p graphrag.SummaryProgress) {
		line := fmt.Sprintf("  %d/%d communities, %d model calls, %d tokens", p.Done, p.Total, p.Calls, p.Tokens)
		if p.Current != "" {
			line += ": " + p.Current
		}
		fmt.Fprintln(e.stderr, line)
	})
	ended := "done"
	if err != nil {
		ended = "stopped"
	}
	fmt.Fprintf(e.stdout, "%s: %d of %d summaries written in %d model calls and %d tokens\n",
		ended, st.Done-st.Failed-st.Changed, plan.Calls, st.Calls, st.Tokens)
	if st.Failed > 0 {
		fmt.Fprintf(e.stdout, "%d could not be written (see the log); run again to retry them\n", st.Failed)
	}
	if st.Changed > 0 {
		fmt.Fprintf(e.stdout, "%d changed while they were written; run again for their new members\n", st.Changed)
	}
	return err
}

// planText says what a summary run will do and cost, before it starts.
func planText(p graphrag.SummaryPlan, model string) string {
	s := fmt.Sprintf("Summarising %d communities takes %d model calls to %s: about %d prompt tokens and at most %d answer tokens (%d in all).",
		p.Calls, p.Calls, model, p.PromptTokens, p.MaxCompletionTokens, p.Tokens())
	if p.Left > 0 {
		s += fmt.Sprintf(" %d smaller communities are left for a later run.", p.Left)
	}
	return s
}

// confirm asks on stderr and reads a yes from stdin.
func confirm(e *env, question string) bool {
	fmt.Fprint(e.stderr, question)
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}

// printCommunities lists communities with their heaviest names and their summary's title.
func printCommunities(w io.Writer, list []graphrag.Community) {
	for _, c := range list[:min(len(list), 30)] {
		names := strings.Join(c.Entities[:min(4, len(c.Entities))], ", ")
		title := "(no summary)"
		if c.Summarized() {
			title = c.Title
		}
		fmt.Fprintf(w, "  %-28s %3d names  %s  [%s]\n", c.ID, len(c.Entities), title, names)
	}
	if len(list) > 30 {
		fmt.Fprintf(w, "  ... and %d more\n", len(list)-30)
	}
}

// refreshCommunities recomputes the communities after a command changed the documents, saying so on
// stderr; a failure is only reported, since the documents' change stands.
func refreshCommunities(ctx context.Context, e *env, a *app) {
	counts, err := graphrag.NewCommunities(a.store, nil, a.logger).Refresh(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "communities not recomputed: %v\n", err)
		return
	}
	fmt.Fprintf(e.stderr, "communities recomputed: %d, %d with a summary (hopwise communities --summarize writes the others)\n",
		counts.Communities, counts.Summarized)
}

// startCommunities keeps the communities of a server's store current (recomputed after documents are
// read or deleted) and returns the runner of the Graph page's summaries; stop ends both and waits.
func startCommunities(ctx context.Context, a *app) (summaries *graphrag.SummaryJob, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	cs := graphrag.NewCommunities(a.store, a.llm, a.logger)
	progress, unsubscribe := a.ingester.Subscribe()
	summaries = graphrag.NewSummaryJob(ctx, cs)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// a community that changed when documents came or went gets its summary again if it had one
		graphrag.NewCommunityRefresher(cs, a.logger).WithResummaries(summaries, 0).Run(ctx, progress)
	}()
	return summaries, func() {
		cancel()
		unsubscribe()
		<-done
		_ = summaries.Wait(context.Background())
	}
}
