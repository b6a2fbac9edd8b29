package graphrag

import "context"

// Bridge queries, measured on MuSiQue with GPT-3.5's graph and MiniLM vectors (docs/benchmarks.md): the
// question searched again with the entity each of the bridgeFacts best facts leads to, each bridge
// query's lists weighing BridgeWeight against the question's own, shared out over the queries when there
// are several (sub-questions already carry the next hops they know of; with MuSiQue's gold sub-questions
// shared-out bridges moved R@2 from 0.707 to 0.717 and R@5 from 0.877 to 0.853).
const (
	bridgeFacts  = 3
	BridgeWeight = 1.0
)

// bridgeQueries are the next hops the facts suggest: for each of the best facts, in order, the end the
// queries do not already name, searched by BM25 as its name alone and by vectors appended to the first
// query ("Who is the spouse of the Green performer? Steve Hillage"). A multi-hop question names its first
// entity; its answer sits in the passages of the entity a relation leads to, which the question does not
// name and search alone rarely ranks high. (BM25 over the question and the name matched the question's
// words again: R@5 0.763 against 0.770 for the name alone, and slower.)
func bridgeQueries(queries []Query, facts []Fact, linked []LinkedEntity) []Query {
	if len(queries) == 0 {
		return nil
	}
	skip := make(map[string]bool, len(linked))
	for _, e := range linked {
		skip[e.Key] = true
	}
	var out []Query
	for _, f := range facts {
		if len(out) == bridgeFacts {
			break
		}
		for _, end := range [2]struct{ key, name string }{
			{f.Relation.Source, f.Relation.SourceName}, {f.Relation.Target, f.Relation.TargetName},
		} {
			if skip[end.key] || end.name == "" {
				continue
			}
			skip[end.key] = true
			out = append(out, Query{Text: end.name, EmbedText: queries[0].Text + " " + end.name})
			break
		}
	}
	return out
}

// bridge searches the bridge queries and fuses their lists with the queries' own (keyword, dense) into
// the candidates the walk then reorders; it records the queries in out.Bridges.
func (r *Retriever) bridge(ctx context.Context, queries []Query, keyword, dense [][]ScoredChunk, depth int, out *Retrieval) ([]ScoredChunk, error) {
	bridges := bridgeQueries(queries, out.Facts, out.Linked)
	if len(bridges) == 0 {
		return out.Hybrid, nil
	}
	bk, bd, _, err := r.lists(ctx, bridges, depth)
	if err != nil {
		return nil, err
	}
	for _, q := range bridges {
		out.Bridges = append(out.Bridges, q.Text)
	}
	weights := make([]float64, 0, len(queries)+len(bridges))
	for range queries {
		weights = append(weights, 1)
	}
	for range bridges {
		weights = append(weights, BridgeWeight/float64(len(queries)))
	}
	all := append(append([]Query(nil), queries...), bridges...)
	return fuseHybrid(all, append(append([][]ScoredChunk(nil), keyword...), bk...),
		append(append([][]ScoredChunk(nil), dense...), bd...), weights, depth), nil
}
