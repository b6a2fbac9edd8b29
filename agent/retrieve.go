package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// found is what one retrieval brought back, before grading.
type found struct {
	chunks []graphrag.ScoredChunk
	facts  []graphrag.Fact
	// bridges name the entities the graph's facts led retrieval on to, searched for as the next hop.
	bridges []string
}

// factsPerPass bounds the graph facts offered to grading in one pass.
const factsPerPass = 8

// lookup retrieves for the queries: hybrid search (HyDE passages embedded in place of the queries when
// given) and, with the graph technique, the graph walk from the entities they name, fused; with the
// facts the walk ranked first.
func (r *run) lookup(ctx context.Context, queries []string, hyde map[string]string, depth int) (found, error) {
	qs := make([]graphrag.Query, len(queries))
	for i, q := range queries {
		qs[i] = graphrag.Query{Text: q, EmbedText: hyde[q]}
	}
	res, err := r.a.retriever.Retrieve(ctx, qs, graphrag.RetrieveOptions{
		K: depth, Graph: r.cfg.Techniques.Graph, Facts: factsPerPass * 2, MaxSources: 2,
	})
	if err != nil {
		return found{}, fmt.Errorf("agent: retrieve: %w", err)
	}
	return found{chunks: res.Chunks, facts: res.Facts, bridges: res.Bridges}, nil
}

// depth is how many fused results to ask for so that K remain once kept ones are skipped (and enough
// candidates for a reranker to choose from).
func (r *run) depth() int {
	n := r.cfg.K + r.keptChunks()
	if r.cfg.Techniques.Rerank {
		n += 2 * r.cfg.K
	}
	return n
}

func (r *run) keptChunks() int {
	n := 0
	for _, s := range r.st.kept {
		if s.kind == KindChunk {
			n++
		}
	}
	return n
}

// merge joins the results of two retrievals: chunks fused by reciprocal rank, facts in order, once each.
func merge(a, b found, k int) found {
	out := found{chunks: graphrag.Fuse([][]graphrag.ScoredChunk{a.chunks, b.chunks}, k)}
	for _, name := range slices.Concat(a.bridges, b.bridges) {
		if !slices.Contains(out.bridges, name) {
			out.bridges = append(out.bridges, name)
		}
	}
	seen := map[string]bool{}
	for _, f := range slices.Concat(a.facts, b.facts) {
		if !seen[f.ID] {
			seen[f.ID] = true
			out.facts = append(out.facts, f)
		}
	}
	return out
}

// fresh picks what grading sees this pass: up to K chunks and factsPerPass facts not kept already,
// reranked against rankQuery when a reranker is on. Sources kept earlier are never graded again; sources
// rejected earlier are graded again when a new query brings them back, because they are then judged
// against a sub-question they were not judged against before.
func (r *run) fresh(ctx context.Context, f found, rankQuery string) []source {
	var chunks []source
	for _, c := range f.chunks {
		s := source{kind: KindChunk, chunk: c.Chunk}
		if !r.st.keptKeys[s.key()] {
			chunks = append(chunks, s)
		}
	}
	if r.cfg.Techniques.Rerank && len(chunks) > 1 {
		chunks = r.rerank(ctx, rankQuery, chunks)
	}
	chunks = chunks[:min(len(chunks), r.cfg.K)]
	var facts []source
	for _, fact := range f.facts {
		s := source{kind: KindFact, fact: fact}
		if !r.st.keptKeys[s.key()] && len(facts) < factsPerPass {
			facts = append(facts, s)
		}
	}
	return append(chunks, facts...)
}

// rerank orders chunks by the reranker's scores; on failure the fused order stands.
func (r *run) rerank(ctx context.Context, query string, chunks []source) []source {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.chunk.Text
	}
	scores, err := r.a.rerank.Rerank(ctx, query, texts)
	if err != nil {
		r.a.log.Warn("agent: rerank failed; keeping the fused order", "err", err)
		r.rec.send(Event{Type: EventError, Node: NodeRetrieve, Error: "reranking failed; using the search order"})
		return chunks
	}
	out := make([]source, 0, len(chunks))
	for _, s := range scores {
		out = append(out, chunks[s.Index])
	}
	return out
}

// retrieveSummary says what a pass found, for people.
func retrieveSummary(queries []string, items []source, bridges []string) string {
	chunks, facts := 0, 0
	for _, s := range items {
		if s.kind == KindFact {
			facts++
		} else if s.kind == KindChunk {
			chunks++
		}
	}
	what := fmt.Sprintf("%d new passages and %d graph facts", chunks, facts)
	if len(bridges) > 0 {
		what += "; followed the graph on to " + clip(strings.Join(bridges, ", "), 120)
	}
	if len(queries) == 1 {
		return "Searched for “" + clip(queries[0], 120) + "”: " + what
	}
	return fmt.Sprintf("Searched for %d queries (%s): %s", len(queries), clip(strings.Join(queries, "; "), 160), what)
}
