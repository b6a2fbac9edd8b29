package graphrag

import (
	"context"
	"strings"
)

// Embedder turns texts into vectors, one per text, in order. Documents and queries must be embedded by
// the same model, whose dimension is the store's.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// RRFK is the reciprocal-rank-fusion constant: a result at rank r in one list scores 1/(RRFK+r).
const RRFK = 60

// Retriever reads a Store the way the agent needs: hybrid chunk search and graph facts.
type Retriever struct {
	store Store
	embed Embedder
}

// NewRetriever returns a Retriever over store whose queries are embedded by embed.
func NewRetriever(store Store, embed Embedder) *Retriever {
	return &Retriever{store: store, embed: embed}
}

// Query is one search. EmbedText, when set, is embedded instead of Text (HyDE: a hypothetical answer
// passage); BM25 always uses Text.
type Query struct {
	Text      string
	EmbedText string
}

// Search is hybrid search alone: BM25 and vector search for every query, fused (see Retrieve), at most k
// chunks, best first, each once.
func (r *Retriever) Search(ctx context.Context, queries []Query, k int) ([]ScoredChunk, error) {
	if k <= 0 {
		return nil, nil
	}
	res, err := r.Retrieve(ctx, queries, RetrieveOptions{K: k})
	return res.Chunks, err
}

// Fuse merges ranked lists by reciprocal rank fusion (k=RRFK) and returns the top k, ranks renumbered from 1.
// Ties keep the order of first appearance, so the result is deterministic.
func Fuse(lists [][]ScoredChunk, k int) []ScoredChunk { return FuseWeighted(lists, nil, k) }

func dedupeQueries(qs []Query) []Query {
	seen := map[string]bool{}
	var out []Query
	for _, q := range qs {
		q.Text = strings.TrimSpace(q.Text)
		key := strings.ToLower(q.Text) + "\x00" + q.EmbedText
		if q.Text == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, q)
	}
	return out
}

// VectorLead is how many of vector search's first passages lead hybrid search's own list, in their
// order, before the rest of the fused ranking (hybridList). Measured on MuSiQue with MiniLM
// (docs/benchmarks.md): BM25 fused by scores lifted lexical distractors over the vectors' second or third
// passage ("South Branch Souhegan River" for the Merrimack River), and gained nothing in the top 2,
// while the passages it lifts from deep in the vector list into the next places are its gain at 5.
const VectorLead = 4

// hybridList is hybrid search's own list for the queries: fused, the first VectorLead passages of
// vector search (dense, the queries' vector lists fused) leading in their order, unless a query names an
// identifier or a code in capitals, which BM25 finds and the vectors place near every similar one. Each
// passage keeps its fused score, so a led passage may score below one after it; the first k.
func hybridList(queries []Query, dense, fused []ScoredChunk, k int) []ScoredChunk {
	for _, q := range queries {
		if exactTerms(q.Text) {
			return fused[:min(k, len(fused))]
		}
	}
	lead := dense[:min(VectorLead, len(dense))]
	score := make(map[string]float64, len(fused))
	for _, c := range fused {
		score[c.ID] = c.Score
	}
	led := make(map[string]bool, len(lead))
	out := make([]ScoredChunk, 0, min(k, len(fused)+len(lead)))
	for _, c := range lead {
		if s, ok := score[c.ID]; ok {
			c.Score = s
		}
		led[c.ID] = true
		out = append(out, c)
	}
	for _, c := range fused {
		if !led[c.ID] {
			out = append(out, c)
		}
	}
	out = out[:min(k, len(out))]
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
