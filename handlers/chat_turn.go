package handlers

import (
	"net/url"
	"strconv"

	"github.com/hopwise/hopwise/agent"
	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/web"
)

// turnView is a stored turn as the chat shows it: its answer, citations and trace decoded from the JSON the
// agent stored.
func (s *server) turnView(t graphrag.Turn) web.TurnView {
	if t.Status == agent.TurnAsked || t.Status == agent.TurnRunning { // its stream starts or follows the run
		return web.TurnView{Running: true, RunID: t.ID, ConversationID: t.ConversationID, Question: t.Question}
	}
	trace, err := agent.DecodeTrace(t.Trace)
	if err != nil {
		s.Logger.Warn("chat: decode trace", "turn", t.ID, "err", err)
	}
	cites, err := agent.DecodeCitations(t.Citations)
	if err != nil {
		s.Logger.Warn("chat: decode citations", "turn", t.ID, "err", err)
	}
	v := web.TurnView{ID: t.ID, ConversationID: t.ConversationID, Question: t.Question, AnswerMD: t.Answer, CitePrefix: citePrefix(t.ID)}
	var result *agent.Result
	var facts []agent.FactRef
	for _, ev := range trace {
		if step, ok := stepView(ev); ok {
			v.Steps = append(v.Steps, step)
		}
		if ev.Usage != nil {
			v.Cost = costText(ev.Usage)
		}
		if ev.Result != nil {
			result = ev.Result
		}
		facts = append(facts, ev.Facts...)
	}
	for _, c := range cites {
		v.Citations = append(v.Citations, citationView(c, v.CitePrefix))
		if c.Kind == agent.KindFact {
			facts = append(facts, agent.FactRef{ID: c.FactID, Sentence: c.Sentence, Entities: c.Entities})
		}
	}
	v.GraphURL = factsGraphURL(facts)
	if result != nil {
		r := *result
		r.Citations = cites // stored apart from the trace
		v.Badges = badges(r)
		if v.Cost == "" {
			v.Cost = costText(&result.Usage)
		}
	}
	switch t.Status {
	case "cancelled":
		v.Notice = "You stopped this answer; what you see is as far as it got."
	case agent.TurnFailed:
		v.Notice, v.NoticeBad, v.Retry = "This answer could not be finished. The steps below show how far it got; please ask again.", true, true
	case agent.TurnInterrupted:
		v.Notice, v.NoticeBad, v.Retry = "The server writing this answer stopped before it was finished; what you see is as far as it got.", true, true
	}
	if v.AnswerMD == "" && v.Notice == "" {
		v.Notice = "No answer was written."
	}
	return v
}

func citePrefix(turnID string) string { return "cite-" + turnID + "-" }

func citationView(c agent.Citation, prefix string) web.CitationView {
	v := web.CitationView{N: c.N, Anchor: prefix + itoa(c.N), Kind: c.Kind, DocName: c.DocName, Section: c.Section,
		Snippet: c.Snippet, Sentence: c.Sentence, Title: cmpOr(c.Title, c.URL), WebURL: webURL(c.URL)}
	if c.DocID != "" {
		v.OriginalURL, v.PageLabel = web.OriginalURL(c.DocID, c.DocName, c.Page), web.PageLabel(c.DocName, c.Page)
	}
	if c.ChunkID != "" && c.DocID != "" {
		v.PassageURL = web.PassageURL(c.DocID, c.ChunkID)
	} else if c.ChunkID != "" {
		v.PassageURL = passageURL(c.ChunkID)
	}
	for _, e := range c.Entities {
		v.Entities = append(v.Entities, web.Link{Text: e, URL: "/graph?entity=" + url.QueryEscape(e)})
	}
	if c.Kind == agent.KindFact {
		v.GraphURL = factsGraphURL([]agent.FactRef{{ID: c.FactID, Entities: c.Entities}})
		if v.Sentence == "" {
			v.Sentence = c.Snippet
		}
	}
	return v
}

func badges(r agent.Result) []web.Badge {
	var b []web.Badge
	switch {
	case r.Direct:
		b = append(b, web.Badge{Text: "from general knowledge, not your documents", Kind: "web"})
	case r.NotFound:
		b = append(b, web.Badge{Text: "not found in your documents", Kind: "bad"})
	case r.Grounded == agent.GroundedFully:
		b = append(b, web.Badge{Text: "checked against the sources"})
	case r.Grounded == agent.GroundedPartially:
		b = append(b, web.Badge{Text: "partly supported by the sources", Kind: "web"})
	case r.Grounded == agent.GroundedNot:
		b = append(b, web.Badge{Text: "not supported by the sources", Kind: "bad"})
	}
	if r.UsedWeb {
		b = append(b, web.Badge{Text: "used the web", Kind: "web"})
	}
	if r.Attributed && len(r.Citations) > 0 {
		b = append(b, web.Badge{Text: "sources matched by wording, not cited by the model", Kind: "web"})
	}
	switch n := len(r.Unmatched); {
	case n == 1:
		b = append(b, web.Badge{Text: "1 statement not found in the sources", Kind: "bad"})
	case n > 1:
		b = append(b, web.Badge{Text: itoa(n) + " statements not found in the sources", Kind: "bad"})
	}
	return b
}

func itoa(n int) string { return strconv.Itoa(n) }
