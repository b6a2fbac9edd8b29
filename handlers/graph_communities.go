package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
	"github.com/labstack/echo/v4"
)

// Summaries estimates and writes the community summaries in the background (graphrag.SummaryJob).
type Summaries interface {
	Counts(ctx context.Context) (graphrag.CommunityCounts, error)
	Estimate(ctx context.Context, max int) (graphrag.SummaryPlan, graphrag.CommunityCounts, error)
	// Start plans and starts a run that outlives the request; graphrag.ErrSummarizing while one goes on.
	Start(max int) (graphrag.SummaryPlan, error)
	Stop()
	State() graphrag.SummaryJobState
}

// graphCommunities is the graph page's topics section: counts, the progress of a run and, with
// ?estimate=1, what summarising would take, computed without any model call.
func (s *server) graphCommunities(c echo.Context) error {
	return s.renderCommunities(c, c.QueryParam("estimate") == "1")
}

// graphSummarize starts summarising; the section then shows the run's progress.
func (s *server) graphSummarize(c echo.Context) error {
	if s.Summaries == nil {
		return echo.NewHTTPError(http.StatusNotFound, "This server cannot write summaries.")
	}
	if _, err := s.Summaries.Start(graphrag.DefaultMaxSummaries); err != nil && !errors.Is(err, graphrag.ErrSummarizing) {
		return err
	}
	if !isHTMX(c) {
		return redirect(c, "/graph#communities")
	}
	return s.renderCommunities(c, false)
}

// graphSummariesStop stops the run after the call in flight; what was written is kept.
func (s *server) graphSummariesStop(c echo.Context) error {
	if s.Summaries == nil {
		return echo.NewHTTPError(http.StatusNotFound, "This server cannot write summaries.")
	}
	s.Summaries.Stop()
	if !isHTMX(c) {
		return redirect(c, "/graph#communities")
	}
	return s.renderCommunities(c, false)
}

func (s *server) renderCommunities(c echo.Context, estimate bool) error {
	p := web.CommunitiesPanel{CSRF: csrfToken(c)}
	if s.Summaries == nil {
		p.Unavailable = "This server does not write summaries."
		return render(c, http.StatusOK, web.CommunitiesPanelView(p))
	}
	ctx := c.Request().Context()
	if st := s.Summaries.State(); !st.Started.IsZero() {
		p.Run = summaryRunView(st)
	}
	estimate = estimate && (p.Run == nil || !p.Run.Running)
	if !estimate { // the counts alone: planning reads every community's names, facts and passages
		counts, err := s.Summaries.Counts(ctx)
		if err != nil {
			return err
		}
		p.Communities, p.Summarized = counts.Communities, counts.Summarized
		return render(c, http.StatusOK, web.CommunitiesPanelView(p))
	}
	plan, counts, err := s.Summaries.Estimate(ctx, graphrag.DefaultMaxSummaries)
	if err != nil {
		return err
	}
	p.Communities, p.Summarized = counts.Communities, counts.Summarized
	p.Estimate = &web.SummaryEstimate{Communities: plan.Calls, Calls: plan.Calls, PromptTokens: plan.PromptTokens,
		MaxCompletionTokens: plan.MaxCompletionTokens, Tokens: plan.Tokens(), Left: plan.Left}
	return render(c, http.StatusOK, web.CommunitiesPanelView(p))
}

func summaryRunView(st graphrag.SummaryJobState) *web.SummaryRunView {
	pr := st.Progress
	return &web.SummaryRunView{
		Running: st.Running, Done: pr.Done, Total: pr.Total, Written: pr.Done - pr.Failed - pr.Changed,
		Failed: pr.Failed, Changed: pr.Changed, Calls: pr.Calls, Tokens: pr.Tokens, Current: pr.Current,
		PlannedCalls: st.Plan.Calls, PlannedTokens: st.Plan.Tokens(), Error: st.Err,
	}
}
