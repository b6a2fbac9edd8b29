package graphrag

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Walk parameters, measured on MuSiQue with GPT-3.5's graph and MiniLM vectors (docs/benchmarks.md).
const (
	walkSeedChunks = 20   // passages of vector search that seed the walk
	walkChunkSeed  = 0.05 // their share of the seed mass, against the entities'
	walkDamping    = 0.5  // probability of following an edge rather than restarting
	walkIterations = 50
	walkTopFacts   = 5 // relations nearest the queries whose ends seed the walk
	// A relation edge weighs exp(walkFactTemp x its sentence's cosine similarity to the queries), so the
	// walk follows the relations the question is about.
	walkFactTemp = 5.0
)

// The bounds of the walk's Subgraph read (measured with the parameters above), exported so that a store
// can compile its statements for them.
const (
	WalkPerEntity = 16  // passages read per entity
	WalkRelations = 150 // relations read around the seeds
)

// mean is the mean of the values; 0 for none.
func mean(m map[string]float64) float64 {
	if len(m) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range m {
		sum += v
	}
	return sum / float64(len(m))
}

// walk ranks passages and relations by a personalized PageRank over entities and passages (HippoRAG 2's
// recipe), seeded by the linked entities (each by how sure the link is and how specific the entity is: one
// mentioned in few passages weighs more), by the ends of the relations whose text is nearest the queries,
// and, with a small share, by the passages vector search found first. It reads out.Linked and out.Dense,
// fills out.Facts without their sources and returns the passages the walk ranks, which readWalk reads.
func (r *Retriever) walk(ctx context.Context, qvecs [][]float32, out *Retrieval, opt RetrieveOptions) ([]walkedChunk, error) {
	linked := out.Linked
	seeds := out.Dense[:min(len(out.Dense), walkSeedChunks)]
	if len(linked) == 0 && len(seeds) == 0 {
		return nil, nil
	}
	keys := make([]string, len(linked))
	for i, e := range linked {
		keys[i] = e.Key
	}
	seedIDs := make([]string, len(seeds))
	for i, c := range seeds {
		seedIDs[i] = c.ID
	}
	sg, err := r.store.Subgraph(ctx, SubgraphQuery{Keys: keys, ChunkIDs: seedIDs, Vectors: qvecs,
		PerEntity: WalkPerEntity, MaxRelations: WalkRelations})
	if err != nil {
		return nil, fmt.Errorf("graphrag: walk: %w", err)
	}
	factScore := sg.Near
	g := newWalkGraph()
	for key, chunks := range sg.Mentions {
		e := g.node("e:" + key)
		for _, c := range chunks {
			g.link(e, g.node("c:"+c), 1)
		}
	}
	for c, ks := range sg.ChunkEntities {
		for _, k := range ks {
			g.link(g.node("c:"+c), g.node("e:"+k), 1)
		}
	}
	for _, rel := range sg.Relations {
		g.link(g.node("e:"+rel.Source), g.node("e:"+rel.Target), math.Exp(walkFactTemp*factScore[rel.ID]))
	}
	reset := map[int]float64{}
	entityMass := 0.0
	for _, e := range linked {
		v := e.Confidence * specificity(sg.Mentioned[e.Key])
		reset[g.node("e:"+e.Key)] += v
		entityMass += v
	}
	// A relation seeds the walk by how much nearer the queries it is than the relations around it on
	// average: a weak embedding model finds every sentence somewhat near, and then none stands out.
	background := mean(factScore)
	top := append([]Relation(nil), sg.Relations...)
	sort.SliceStable(top, func(i, j int) bool { return factScore[top[i].ID] > factScore[top[j].ID] })
	top = top[:min(len(top), walkTopFacts)]
	for _, rel := range top {
		for _, k := range []string{rel.Source, rel.Target} {
			v := max(factScore[rel.ID]-background, 0) * specificity(sg.Mentioned[k])
			reset[g.node("e:"+k)] += v
			entityMass += v
		}
	}
	if entityMass == 0 {
		return nil, nil
	}
	lo, hi := 0.0, 0.0
	if len(seeds) > 0 {
		lo, hi = seeds[len(seeds)-1].Score, seeds[0].Score
	}
	seedScore := func(c ScoredChunk) float64 {
		if hi <= lo {
			return 1
		}
		return (c.Score-lo)/(hi-lo) + 0.01
	}
	chunkMass := 0.0
	for _, c := range seeds {
		chunkMass += seedScore(c)
	}
	chunkTotal := entityMass * walkChunkSeed / (1 - walkChunkSeed) // passages get walkChunkSeed of the mass
	for _, c := range seeds {
		reset[g.node("c:"+c.ID)] += chunkTotal * seedScore(c) / chunkMass
	}
	resetVec := make([]float64, len(g.names))
	for i, v := range reset {
		resetVec[i] = v
	}
	score := g.pageRank(resetVec, walkDamping, walkIterations)
	out.Facts = rankFacts(sg.Relations, factScore, linked, func(key string) float64 {
		if i, ok := g.index["e:"+key]; ok {
			return score[i]
		}
		return 0
	}, opt.Facts)
	return walkRanked(g, score, max(2*opt.K, 20)), nil
}

// walkedChunk is a passage the walk reached, by its score.
type walkedChunk struct {
	id    string
	score float64
}

// walkRanked returns the depth passages of the walk with the best scores, best first (ties by ID).
func walkRanked(g *walkGraph, score []float64, depth int) []walkedChunk {
	var chunks []walkedChunk
	for i, name := range g.names {
		if strings.HasPrefix(name, "c:") && score[i] > 0 {
			chunks = append(chunks, walkedChunk{name[2:], score[i]})
		}
	}
	sort.Slice(chunks, func(i, j int) bool {
		if chunks[i].score != chunks[j].score {
			return chunks[i].score > chunks[j].score
		}
		return chunks[i].id < chunks[j].id
	})
	return chunks[:min(len(chunks), depth)]
}

// readWalk reads, in one call, the walk's passages (the Walk list, best first) and up to opt.MaxSources of
// the chunks supporting each of facts (sources[i] for facts[i]). Passages deleted since the walk are left
// out. It only reads facts, so that it can run beside the bridge searches.
func (r *Retriever) readWalk(ctx context.Context, walked []walkedChunk, facts []Fact, opt RetrieveOptions) (walk []ScoredChunk, sources [][]Chunk, err error) {
	ids := make([]string, 0, len(walked)+len(facts)*opt.MaxSources)
	for _, c := range walked {
		ids = append(ids, c.id)
	}
	for _, f := range facts {
		ids = append(ids, f.Relation.ChunkIDs[:min(opt.MaxSources, len(f.Relation.ChunkIDs))]...)
	}
	if len(ids) == 0 {
		return nil, nil, nil
	}
	read, err := r.store.Chunks(ctx, slices.Compact(slices.Sorted(slices.Values(ids))))
	if err != nil {
		return nil, nil, fmt.Errorf("graphrag: walk passages and fact sources: %w", err)
	}
	byID := make(map[string]Chunk, len(read))
	for _, c := range read {
		byID[c.ID] = c
	}
	for _, c := range walked {
		if ch, ok := byID[c.id]; ok {
			walk = append(walk, ScoredChunk{Chunk: ch, Score: c.score, Rank: len(walk) + 1})
		}
	}
	sources = make([][]Chunk, len(facts))
	for i, f := range facts {
		for _, id := range f.Relation.ChunkIDs[:min(opt.MaxSources, len(f.Relation.ChunkIDs))] {
			if c, ok := byID[id]; ok {
				sources[i] = append(sources[i], c)
			}
		}
	}
	return walk, sources, nil
}

// specificity weighs an entity by how few passages mention it, as IDF weighs a word: 1 for one passage,
// 1/n for n.
func specificity(mentioned int) float64 {
	if mentioned <= 1 {
		return 1
	}
	return 1 / float64(mentioned)
}

// rankFacts orders relations by what makes a fact worth reading for the queries: how near its sentence
// is to them (cosine), how surely they name its ends (link confidence of each), and where the walk went
// (each end's score against the best entity's), and returns the best n as facts.
func rankFacts(rels []Relation, near map[string]float64, linked []LinkedEntity, walked func(key string) float64, n int) []Fact {
	named := map[string]float64{}
	for _, e := range linked {
		named[e.Key] = max(named[e.Key], e.Confidence)
	}
	best := 0.0
	for _, rel := range rels {
		best = max(best, walked(rel.Source), walked(rel.Target))
	}
	if best == 0 {
		best = 1
	}
	facts := make([]Fact, 0, len(rels))
	for _, rel := range rels {
		score := near[rel.ID] + named[rel.Source] + named[rel.Target] + (walked(rel.Source)+walked(rel.Target))/best
		facts = append(facts, Fact{ID: rel.ID, Relation: rel, Hop: 1, Sentence: FactSentence(rel), Score: score})
	}
	sort.SliceStable(facts, func(i, j int) bool {
		if facts[i].Score != facts[j].Score {
			return facts[i].Score > facts[j].Score
		}
		return facts[i].ID < facts[j].ID
	})
	return facts[:min(len(facts), n)]
}
