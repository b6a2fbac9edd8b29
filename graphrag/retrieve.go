package graphrag

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
)

// RetrieveOptions bound one retrieval.
type RetrieveOptions struct {
	K     int  // chunks returned (default 10)
	Graph bool // walk the graph too and fuse its passages with hybrid search
	Facts int  // graph facts returned at most (default 12)
	// MaxSources bounds the source chunks attached to each fact (default 2).
	MaxSources int
}

func (o RetrieveOptions) withDefaults() RetrieveOptions {
	if o.K <= 0 {
		o.K = 10
	}
	if o.Facts <= 0 {
		o.Facts = 12
	}
	if o.MaxSources <= 0 {
		o.MaxSources = 2
	}
	return o
}

// Retrieval is what one retrieval found. Chunks is what a reader gets; the other lists show how it was
// made, for the trace and the evaluation.
type Retrieval struct {
	Chunks  []ScoredChunk // hybrid search fused with the graph walk's passages, best first
	Keyword []ScoredChunk // BM25 over the queries
	Dense   []ScoredChunk // vector search over the queries
	Hybrid  []ScoredChunk // Keyword and Dense fused
	Walk    []ScoredChunk // the passages of the graph walk, best first
	Facts   []Fact        // relations the walk reached, best first, each with its source chunks
	Linked  []LinkedEntity
	// Bridges name the entities the best facts lead to, searched again with the first query (see
	// bridgeQueries).
	Bridges []string
	// Passes is how many passes Retrieve made: more than one when replaces or deletes committed during
	// the first (see Retrieve).
	Passes int
}

// Retrieve searches for every query by BM25 and vectors and, with opt.Graph, walks the graph from the
// entities the queries name and the passages search found first (a personalized PageRank over entities
// and passages), searches again for the entities the best facts lead to (bridge queries), and lets the
// walk reorder what the searches found by weighted reciprocal rank.
//
// A pass makes many reads, some in parallel, and a document replaced or deleted between two of them
// would give it passages of both versions, or of neither: the pass reads the store's Generation before
// and after itself and is made again when a replace or delete committed meanwhile. After heldAfter passes
// that all met one, a store that can (CommitHolder) holds its commits off for the next, which then sees
// one version of everything this process wrote; up to maxPasses passes in all (the last is returned as
// it is, which only another process's commits can have disturbed).
func (r *Retriever) Retrieve(ctx context.Context, queries []Query, opt RetrieveOptions) (Retrieval, error) {
	opt = opt.withDefaults()
	queries = dedupeQueries(queries)
	if len(queries) == 0 {
		return Retrieval{}, nil
	}
	gen, err := r.store.Generation(ctx)
	if err != nil {
		return Retrieval{}, fmt.Errorf("graphrag: retrieve: %w", err)
	}
	holder, canHold := r.store.(CommitHolder)
	for pass := 1; ; pass++ {
		var out Retrieval
		var after uint64
		if canHold && pass > heldAfter {
			out, gen, after, err = r.heldPass(ctx, holder, queries, opt)
		} else {
			out, err = r.retrieve(ctx, queries, opt)
			if err == nil {
				after, err = r.store.Generation(ctx)
			}
		}
		if err != nil {
			return Retrieval{}, fmt.Errorf("graphrag: retrieve: %w", err)
		}
		if after == gen || pass == maxPasses {
			out.Passes = pass
			return out, nil
		}
		gen = after
	}
}

// heldPass makes a pass of Retrieve with the store's commits held off, and returns the generations of
// the hold's start and end.
func (r *Retriever) heldPass(ctx context.Context, holder CommitHolder, queries []Query, opt RetrieveOptions) (Retrieval, uint64, uint64, error) {
	gen, release, err := holder.HoldCommits(ctx)
	if err != nil {
		return Retrieval{}, 0, 0, err
	}
	out, err := r.retrieve(ctx, queries, opt)
	after, relErr := release()
	if err != nil {
		return Retrieval{}, 0, 0, err
	}
	return out, gen, after, relErr
}

// heldAfter is the number of passes of Retrieve made without holding commits off: most meet none, and a
// hold makes every commit of the process wait for the pass.
const heldAfter = 2

// maxPasses bounds the passes of one Retrieve while replaces and deletes commit during them; each takes
// tens of milliseconds, and a replace commits once its new version is ingested, so passes seldom meet
// even one. Past heldAfter, only another process's commits can disturb a pass.
const maxPasses = 5

// retrieve is one pass of Retrieve over deduplicated queries.
func (r *Retriever) retrieve(ctx context.Context, queries []Query, opt RetrieveOptions) (Retrieval, error) {
	var out Retrieval
	depth := max(2*opt.K, 20)
	// Linking the queries' entities needs no search result: it runs while the searches do.
	var linked []LinkedEntity
	linkErr := make(chan error, 1)
	if opt.Graph {
		texts := make([]string, len(queries))
		for i, q := range queries {
			texts[i] = q.Text
		}
		go func() {
			var err error
			linked, err = r.link(ctx, texts)
			linkErr <- err
		}()
	}
	keyword, dense, vecs, err := r.lists(ctx, queries, depth)
	if opt.Graph {
		err = errors.Join(err, <-linkErr)
	}
	if err != nil {
		return out, err
	}
	out.Keyword = FuseWeighted(keyword, nil, depth)
	out.Dense = FuseWeighted(dense, nil, depth)
	out.Hybrid = hybridList(queries, out.Dense, fuseHybrid(queries, keyword, dense, nil, depth), depth)
	out.Chunks = out.Hybrid[:min(len(out.Hybrid), opt.K)]
	if !opt.Graph {
		return out, nil
	}
	out.Linked = linked
	walked, err := r.walk(ctx, vecs, &out, opt)
	if err != nil {
		return out, err
	}
	// The bridge queries need the facts, not their passages: the passages of the walk and of the facts
	// are read while the bridges are searched.
	var candidates []ScoredChunk
	var sources [][]Chunk
	var g errgroup.Group
	g.Go(func() (err error) {
		candidates, err = r.bridge(ctx, queries, keyword, dense, depth, &out)
		return err
	})
	g.Go(func() (err error) {
		out.Walk, sources, err = r.readWalk(ctx, walked, out.Facts, opt)
		return err
	})
	if err := g.Wait(); err != nil {
		return out, err
	}
	for i := range sources {
		out.Facts[i].Sources = sources[i]
	}
	out.Chunks = candidates[:min(len(candidates), opt.K)]
	if w := WalkWeight * out.linkConfidence(); w > 0 && len(out.Walk) > 0 {
		out.Chunks = rerankByWalk(candidates, out.Walk, w, opt.K)
	}
	return out, nil
}

// rerankByWalk orders hybrid search's candidates by reciprocal rank fusion with the walk's passages (the
// walk's list weighing w against 1) and returns the first k. The walk reorders what search found; it adds
// no passage of its own: measured on MuSiQue, the whole gain of the fusion came from candidates search had
// already found, while passages only the walk found (full of the names the question holds) pushed out
// lexical matches that answered.
func rerankByWalk(hybrid, walk []ScoredChunk, w float64, k int) []ScoredChunk {
	found := make(map[string]bool, len(hybrid))
	for _, c := range hybrid {
		found[c.ID] = true
	}
	var inWalk []ScoredChunk
	for _, c := range walk {
		if found[c.ID] {
			inWalk = append(inWalk, c)
		}
	}
	return FuseWeighted([][]ScoredChunk{hybrid, inWalk}, []float64{1, w}, k)
}

// linkConfidence is how surely the queries name an entity of the graph: the best link's confidence, 0
// when they name none (the walk then only echoes vector search, so it is not fused).
func (out *Retrieval) linkConfidence() float64 {
	best := 0.0
	for _, e := range out.Linked {
		best = max(best, e.Confidence)
	}
	return best
}

// lists runs BM25 and vector search for every query.
func (r *Retriever) lists(ctx context.Context, queries []Query, depth int) (keyword, dense [][]ScoredChunk, vecs [][]float32, err error) {
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.Text
		if q.EmbedText != "" {
			texts[i] = q.EmbedText
		}
	}
	vecs, err = r.embed.Embed(ctx, texts)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("graphrag: embed queries: %w", err)
	}
	if len(vecs) != len(queries) {
		return nil, nil, nil, fmt.Errorf("graphrag: embed queries: got %d vectors for %d queries", len(vecs), len(queries))
	}
	keyword, dense = make([][]ScoredChunk, len(queries)), make([][]ScoredChunk, len(queries))
	var g errgroup.Group
	g.SetLimit(searchesInFlight)
	for i, q := range queries {
		g.Go(func() (err error) {
			if keyword[i], err = r.store.SearchText(ctx, KeywordQuery(q.Text), depth); err != nil {
				return fmt.Errorf("graphrag: search text %q: %w", q.Text, err)
			}
			return nil
		})
		g.Go(func() (err error) {
			if dense[i], err = r.store.SearchVector(ctx, vecs[i], depth); err != nil {
				return fmt.Errorf("graphrag: search vectors: %w", err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, nil, err
	}
	return keyword, dense, vecs, nil
}

// searchesInFlight bounds the searches one retrieval runs at once (SQLite keeps at least four readers; a
// Neo4j session pool more), so that several queries cost about one round trip, not one each.
const searchesInFlight = 4

// Fusion weights, measured on MuSiQue and HotpotQA (docs/benchmarks.md): hybrid search adds the vector
// list's scores at DenseShare and BM25's at the rest, each scaled to [0, 1] within its list (reciprocal
// rank fusion with equal weights ranked below the vectors alone there); the graph walk's passages are then
// fused with the candidates of hybrid and bridge search by reciprocal rank at WalkWeight against 1,
// reordering them (rerankByWalk). With bridge queries the walk's list weighs little: they already carry
// the graph's next hop, and at weight 1 the walk pulled the passages of the question's own names over
// the bridge's.
const (
	DenseShare = 0.8
	WalkWeight = 0.25
)

// IdentifierDenseShare replaces DenseShare for a query that names an identifier or a code (exactTerms): vectors
// place "TRV-117" near every other policy number, BM25 finds exactly it.
const IdentifierDenseShare = 0.4

// identifier matches tokens that name something exactly: policy and form numbers (TRV-117, HR-F-17),
// flight numbers (LH2473), codes of letters then digits (EU261, A3).
var identifier = regexp.MustCompile(`\b(?:[A-Za-z]+-?\d+[A-Za-z0-9]*|[A-Z]{2,}(?:-[A-Z0-9]+)+)\b`)

// capitals matches a word written in capitals only (AY, MUC, AI): a code or an acronym.
var capitals = regexp.MustCompile(`\b[A-Z]{2,}\b`)

// HasIdentifier reports whether text names an identifier such as TRV-117, LH2473 or EU261.
func HasIdentifier(text string) bool { return identifier.MatchString(text) }

// exactTerms reports whether text holds words vectors place badly and BM25 finds exactly: identifiers,
// and codes or acronyms in capitals ("IATA code AY").
func exactTerms(text string) bool { return HasIdentifier(text) || capitals.MatchString(text) }

// fuseHybrid fuses every query's vector and BM25 lists by their scaled scores, so a passage several
// queries find adds their scores; query i's lists weigh weight[i] (all 1 when weight is nil).
func fuseHybrid(queries []Query, keyword, dense [][]ScoredChunk, weight []float64, k int) []ScoredChunk {
	lists := append(append([][]ScoredChunk(nil), dense...), keyword...)
	weights := make([]float64, len(lists))
	for i, q := range queries {
		share := DenseShare
		if exactTerms(q.Text) {
			share = IdentifierDenseShare
		}
		w := 1.0
		if weight != nil {
			w = weight[i]
		}
		weights[i], weights[len(dense)+i] = w*share, w*(1-share)
	}
	return FuseScores(lists, weights, k)
}

// FuseWeighted merges ranked lists by weighted reciprocal rank fusion: a result at rank r of list i scores
// weights[i]/(RRFK+r); nil weights are all 1. It returns the top k, ranks renumbered from 1; ties keep the
// order of first appearance.
func FuseWeighted(lists [][]ScoredChunk, weights []float64, k int) []ScoredChunk {
	var f fusion
	for li, list := range lists {
		w := 1.0
		if weights != nil {
			w = weights[li]
		}
		for i, c := range list {
			f.add(c, w/float64(RRFK+i+1))
		}
	}
	return f.top(k)
}

// FuseScores merges ranked lists by a weighted sum of their scores, each list's scores scaled to [0, 1]
// by its own lowest and highest (a convex combination when the weights sum to 1). A result missing from
// a list gets 0 from it; ties keep the order of first appearance.
func FuseScores(lists [][]ScoredChunk, weights []float64, k int) []ScoredChunk {
	var f fusion
	for li, list := range lists {
		if len(list) == 0 {
			continue
		}
		lo, hi := list[0].Score, list[0].Score
		for _, c := range list {
			lo, hi = min(lo, c.Score), max(hi, c.Score)
		}
		for _, c := range list {
			v := 1.0
			if hi > lo {
				v = max(c.Score-lo, 0) / (hi - lo)
			}
			f.add(c, weights[li]*v)
		}
	}
	return f.top(k)
}

// fusion sums scores by chunk, remembering the order chunks were first met.
type fusion struct {
	byID  map[string]*fused
	order []*fused
}

type fused struct {
	chunk ScoredChunk
	score float64
}

func (f *fusion) add(c ScoredChunk, score float64) {
	if f.byID == nil {
		f.byID = map[string]*fused{}
	}
	e := f.byID[c.ID]
	if e == nil {
		e = &fused{chunk: c}
		f.byID[c.ID] = e
		f.order = append(f.order, e)
	}
	e.score += score
}

// top returns the k best, ranks renumbered from 1, ties in order of first appearance.
func (f *fusion) top(k int) []ScoredChunk {
	all := f.order
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	out := make([]ScoredChunk, 0, min(k, len(all)))
	for i, e := range all[:min(k, len(all))] {
		c := e.chunk
		c.Score, c.Rank = e.score, i+1
		out = append(out, c)
	}
	return out
}

// KeywordQuery is text with possessives dropped ("Wesson's" -> "Wesson", "Jesus'" -> "Jesus"), so that a
// word and its possessive find the same passages.
func KeywordQuery(text string) string {
	words := strings.Fields(text)
	for i, w := range words {
		words[i] = stripPossessive(w)
	}
	return strings.Join(words, " ")
}

// stripPossessive removes a trailing 's or ' (straight or curly) from a word, keeping the punctuation
// after it.
func stripPossessive(w string) string {
	end := len(w)
	for end > 0 && strings.IndexByte(".,;:!?)\"", w[end-1]) >= 0 {
		end--
	}
	body, tail := w[:end], w[end:]
	for _, suffix := range []string{"'s", "’s", "'S", "’S"} {
		if len(body) > len(suffix) && strings.HasSuffix(body, suffix) {
			return body[:len(body)-len(suffix)] + tail
		}
	}
	for _, suffix := range []string{"s'", "s’"} {
		if len(body) > len(suffix) && strings.HasSuffix(body, suffix) {
			return body[:len(body)-len(suffix)+1] + tail
		}
	}
	return w
}
