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
