package agent

import (
	"context"
	"fmt"
)

// webResults is how many web pages one fallback search asks for.
const webResults = 5

// searchWeb is the corrective fallback: it sends the question, and nothing else, to the web search
// provider. Its results are graded like documents. A failed search is reported and the run goes on.
func (r *run) searchWeb(ctx context.Context) []source {
	r.started(NodeWeb, "Searching the web with your question (and nothing from your documents)")
	results, err := r.a.web.Search(ctx, r.st.question, webResults)
	if err != nil {
		r.a.log.Warn("agent: web search failed", "err", err)
		if ctx.Err() == nil {
			r.rec.send(Event{Type: EventError, Node: NodeWeb, Error: "the web search failed: " + err.Error()})
		}
		r.finished(NodeWeb, "The web search failed")
		return nil
	}
	srcs := make([]source, len(results))
	docs := make([]DocVerdict, len(results))
	for i, res := range results {
		srcs[i] = source{kind: KindWeb, web: res}
		docs[i] = DocVerdict{ID: res.URL, DocName: res.Title, Snippet: clip(res.Snippet, 240), Web: true, URL: res.URL}
	}
	summary := fmt.Sprintf("The web search returned %d pages", len(results))
	r.rec.send(Event{Type: EventWeb, Node: NodeWeb, Summary: summary, Docs: docs, Queries: []string{r.st.question}})
	r.finished(NodeWeb, summary)
	return srcs
}
