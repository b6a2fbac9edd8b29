package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// near returns the candidates of m found by meaning: the entities of the passages nearest to the vector of
// its name and description (other than c, the passage it comes from), of a kind that agrees with m's and
// with a description to compare. A name alone, or a name without a kind, looks up nothing: a vector of
// "Midway" says no more than its words do.
func (r *Resolver) near(ctx context.Context, c graphrag.Chunk, m mention) ([]graphrag.Entity, error) {
	if len(m.Vector) == 0 || strings.TrimSpace(m.Type) == "" {
		return nil, nil
	}
	if d := r.store.EmbeddingSpace().Dim; d > 0 && d != len(m.Vector) {
		return nil, nil // vectors of another space than the store's passages: nothing to compare them with
	}
	hits, err := r.store.SearchVector(ctx, m.Vector, nearPassages+1)
	if errors.Is(err, graphrag.ErrDimension) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("resolve: search passages near %q: %w", m.Name, err)
	}
	var ids []string
	for _, h := range hits {
		if h.ID != c.ID && len(ids) < nearPassages {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	sg, err := r.store.Subgraph(ctx, graphrag.SubgraphQuery{ChunkIDs: ids, PerEntity: 1})
	if err != nil {
		return nil, fmt.Errorf("resolve: entities of passages near %q: %w", m.Name, err)
	}
	seen := map[string]bool{m.key: true}
	var keys []string
	add := func(k string) {
		if !seen[k] && len(keys) < maxNear {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, id := range ids { // nearest passage first
		for _, k := range sg.ChunkEntities[id] {
			add(k)
		}
		for _, e := range r.recentOf(id) {
			add(e.Key)
		}
	}
	es, err := r.entities(ctx, keys, c.DocID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(es, func(e graphrag.Entity) bool {
		return e.Description == "" || !typesKnownAlike(m.Type, e.Type)
	}), nil
}

// resolved is an extraction the resolver resolved, as its entities will be stored.
type resolved struct {
	chunk, title string // the passage and its document's title
	entities     []graphrag.Entity
}

// remember keeps x, resolved for passage c, among the recent extractions (the store may not hold it yet).
// The caller holds r.order and has dropped any earlier resolution of c.
func (r *Resolver) remember(c graphrag.Chunk, x graphrag.Extraction) {
	es := make([]graphrag.Entity, len(x.Entities))
	for i, e := range x.Entities {
		e.Aliases = graphrag.SortedUnion(e.Aliases, []string{e.Name})
		e.ChunkIDs, e.DocIDs = nil, []string{c.DocID} // as the store's briefs give them
		es[i] = e
	}
	if len(r.recent) >= maxRecent {
		r.recent = slices.Delete(r.recent, 0, len(r.recent)-maxRecent+1)
	}
	r.recent = append(r.recent, resolved{chunk: c.ID, title: c.DocTitle, entities: es})
}

// recentOf returns the entities of the recent extraction of a passage.
func (r *Resolver) recentOf(chunk string) []graphrag.Entity {
	for _, p := range r.recent {
		if p.chunk == chunk {
			return p.entities
		}
	}
	return nil
}

// recentWith returns the recent extractions' entities for which ok holds, each key once with what every
// extraction said of it.
func (r *Resolver) recentWith(ok func(graphrag.Entity) bool) []graphrag.Entity {
	var out []graphrag.Entity
	for _, p := range r.recent {
		out = withEntities(out, slices.DeleteFunc(slices.Clone(p.entities), func(e graphrag.Entity) bool { return !ok(e) }))
	}
	return out
}

// recentNamed returns the recent entities a search for the words of k finds: one of their names holds a
// word of it (as the store's name search does).
func (r *Resolver) recentNamed(k string) []graphrag.Entity {
	words := strings.Fields(k)
	out := r.recentWith(func(e graphrag.Entity) bool {
		for _, a := range append([]string{e.Name}, e.Aliases...) {
			for _, w := range strings.Fields(key(a)) {
				if !stopWords[w] && slices.Contains(words, w) {
					return true
				}
			}
		}
		return false
	})
	return out[:min(len(out), maxCandidates)]
}

// entities reads the entities of these keys from the store, with what the recent extractions add to them
// (or give alone, for those the store does not hold yet), read as briefs: DocIDs says whether doc mentions
// them, which is all the comparisons ask of their documents.
func (r *Resolver) entities(ctx context.Context, keys []string, doc string) ([]graphrag.Entity, error) {
	stored, err := r.briefs.EntityBriefs(ctx, keys, []string{doc})
	if err != nil {
		return nil, fmt.Errorf("resolve: read entities: %w", err)
	}
	return withEntities(stored, r.recentWith(func(e graphrag.Entity) bool { return slices.Contains(keys, e.Key) })), nil
}

// withEntities adds more to es, merging those of a key es has (graphrag.MergeEntity).
func withEntities(es, more []graphrag.Entity) []graphrag.Entity {
	at := map[string]int{}
	for i, e := range es {
		at[e.Key] = i
	}
	for _, e := range more {
		if i, ok := at[e.Key]; ok {
			es[i] = graphrag.MergeEntity(es[i], e)
			continue
		}
		at[e.Key] = len(es)
		es = append(es, e)
	}
	return es
}
