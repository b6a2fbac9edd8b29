package graphrag

import (
	"context"
	"fmt"
	"sort"
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

// Search runs BM25 and vector search for every query and fuses all the ranked lists by reciprocal rank, so a
// chunk found by several queries or by both methods rises. It returns at most k chunks, best first, each once.
func (r *Retriever) Search(ctx context.Context, queries []Query, k int) ([]ScoredChunk, error) {
	queries = dedupeQueries(queries)
	if len(queries) == 0 || k <= 0 {
		return nil, nil
	}
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.Text
		if q.EmbedText != "" {
			texts[i] = q.EmbedText
		}
	}
	vecs, err := r.embed.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("graphrag: embed queries: %w", err)
	}
	if len(vecs) != len(queries) {
		return nil, fmt.Errorf("graphrag: embed queries: got %d vectors for %d queries", len(vecs), len(queries))
	}
	depth := max(2*k, 20)
	var lists [][]ScoredChunk
	for i, q := range queries {
		text, err := r.store.SearchText(ctx, q.Text, depth)
		if err != nil {
			return nil, fmt.Errorf("graphrag: search text %q: %w", q.Text, err)
		}
		vec, err := r.store.SearchVector(ctx, vecs[i], depth)
		if err != nil {
			return nil, fmt.Errorf("graphrag: search vectors: %w", err)
		}
		lists = append(lists, text, vec)
	}
	return Fuse(lists, k), nil
}

// Fuse merges ranked lists by reciprocal rank fusion (k=RRFK) and returns the top k, ranks renumbered from 1.
// Ties keep the order of first appearance, so the result is deterministic.
func Fuse(lists [][]ScoredChunk, k int) []ScoredChunk {
	type entry struct {
		chunk ScoredChunk
		score float64
		first int
	}
	byID := map[string]*entry{}
	n := 0
	for _, list := range lists {
		for i, c := range list {
			e, ok := byID[c.ID]
			if !ok {
				e = &entry{chunk: c, first: n}
				byID[c.ID] = e
				n++
			}
			e.score += 1.0 / float64(RRFK+i+1)
		}
	}
	all := make([]*entry, 0, len(byID))
	for _, e := range byID {
		all = append(all, e)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].first < all[j].first
	})
	if len(all) > k {
		all = all[:k]
	}
	out := make([]ScoredChunk, len(all))
	for i, e := range all {
		out[i] = e.chunk
		out[i].Score = e.score
		out[i].Rank = i + 1
	}
	return out
}

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
