package handlers

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
)

// stepView puts one agent event as a line of "How I found this"; ok is false for events that are not steps
// (tokens, usage, the final answer, step starts).
func stepView(ev agent.Event) (web.StepView, bool) {
	switch ev.Type {
	case agent.EventNodeFinished:
		if strings.TrimSpace(ev.Summary) == "" {
			return web.StepView{}, false
		}
		return web.StepView{Kind: "step", Title: ev.Summary}, true
	case agent.EventQueries:
		s := web.StepView{Kind: "queries", Title: "I searched for:"}
		for _, q := range ev.Queries {
			s.Items = append(s.Items, web.StepItem{Text: q})
		}
		return s, len(s.Items) > 0
	case agent.EventDocuments, agent.EventWeb:
		return docsStep(ev), true
	case agent.EventHypothesis:
		if strings.TrimSpace(ev.Hypothesis) == "" {
			return web.StepView{}, false
		}
		return web.StepView{Kind: "hypothesis", Title: "My working idea: " + ev.Hypothesis}, true
	case agent.EventFacts:
		s := web.StepView{Kind: "facts", Title: "Facts from the knowledge graph:", GraphURL: factsGraphURL(ev.Facts)}
		for _, f := range ev.Facts {
			s.Items = append(s.Items, web.StepItem{Text: f.Sentence})
		}
		return s, len(s.Items) > 0
	case agent.EventError:
		return web.StepView{Kind: "error", Title: "A problem: " + problemText(ev.Error)}, true
	}
	return web.StepView{}, false
}

func docsStep(ev agent.Event) web.StepView {
	s := web.StepView{Kind: "docs"}
	for _, d := range ev.Docs {
		it := web.StepItem{Text: d.DocName, Note: d.Reason, URL: passageURL(d.ID)}
		if d.Web {
			it.Text, it.URL = cmpOr(d.DocName, d.URL), webURL(d.URL)
		}
		if it.Text == "" {
			it.Text = "a passage"
		}
		if d.Useful {
			s.Items = append(s.Items, it)
		} else {
			s.Dropped = append(s.Dropped, it)
		}
	}
	what := "passages"
	if ev.Type == agent.EventWeb {
		what = "web pages found with your question"
	}
	s.Title = fmt.Sprintf("Read %d %s and kept %d:", len(ev.Docs), what, len(s.Items))
	if len(s.Items) == 0 {
		s.Title = fmt.Sprintf("Read %d %s; none of them answers the question.", len(ev.Docs), what)
	}
	return s
}

// costText says what a run cost, plainly.
func costText(u *agent.Usage) string {
	if u == nil {
		return ""
	}
	calls := "model calls"
	if u.Calls == 1 {
		calls = "model call"
	}
	text := fmt.Sprintf("Cost: %d %s, %s tokens, %s", u.Calls, calls, web.Count(u.PromptTokens+u.CompletionTokens), web.Duration(u.Elapsed))
	if u.Queued >= 100*time.Millisecond {
		text += ", " + web.Duration(u.Queued) + " of it in line for the model"
	}
	return text + "."
}

// queueText is the status line while a question waits for the model, and the step's own line again once
// its turn has come.
func queueText(ev agent.Event, status string) string {
	if ev.Queue != nil && ev.Queue.Waiting {
		return ev.Summary + "…"
	}
	if status == "" {
		return "Working…"
	}
	return status
}

// statusText says what the run is doing now, from a step's start.
func statusText(ev agent.Event) string {
	switch ev.Node {
	case agent.NodeCondense:
		return "Reading the conversation so far…"
	case agent.NodeDecide:
		return "Deciding where to look…"
	case agent.NodeDirect:
		return "Answering from general knowledge…"
	case agent.NodeRetrieve:
		return "Searching your documents…"
	case agent.NodeGrade:
		return "Reading the passages found…"
	case agent.NodeGenerate:
		return "Writing the answer…"
	case agent.NodeAudit:
		return "Checking the answer against the sources…"
	case agent.NodeTransform:
		return "Working out what is still missing…"
	case agent.NodeWeb:
		return "Searching the web with your question…"
	case agent.NodeRevise:
		return "Trimming the answer to what the sources support…"
	}
	if ev.Summary != "" {
		return ev.Summary
	}
	return "Working…"
}

// passageURL leads to a chunk in its document; /passages/ finds the document.
func passageURL(chunkID string) string {
	if chunkID == "" {
		return ""
	}
	return "/passages/" + url.PathEscape(chunkID)
}

// webURL keeps only http and https links.
func webURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// factsGraphURL opens the explorer on exactly these facts.
func factsGraphURL(facts []agent.FactRef) string {
	if len(facts) == 0 {
		return ""
	}
	q := url.Values{}
	var ids []string
	seen := map[string]bool{}
	for _, f := range facts {
		ids = append(ids, f.ID)
		for _, e := range f.Entities {
			if k := graphrag.NormalizeKey(e); k != "" && !seen[k] {
				seen[k] = true
				q.Add("entity", k)
			}
		}
	}
	q.Set("facts", strings.Join(ids, ","))
	return "/graph?" + q.Encode()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
