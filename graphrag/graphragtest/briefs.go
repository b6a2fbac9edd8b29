package graphragtest

import (
	"context"
	"fmt"
	"slices"

	"github.com/hopwise/hopwise/graphrag"
)

// briefStore is what a store reads of its entities for entity resolution (resolve.BriefStore).
type briefStore interface {
	EntityBriefs(ctx context.Context, keys, docs []string) ([]graphrag.Entity, error)
	SearchEntityBriefs(ctx context.Context, query string, k int, docs []string) ([]graphrag.Entity, error)
	NeighbourNames(ctx context.Context, key string, limit int) ([]string, error)
}

// CheckBriefs compares what store reads of every entity its documents mention for entity resolution with its
// full reads: the same entities in the same order, with the same names, kinds, descriptions and aliases, no
// ChunkIDs and as DocIDs those of the full read among the documents asked about (each document alone, and
// all of them); the same entities by name search; and as neighbour names the ends' names of Neighborhood's
// first hop, in its order. It returns how many entities it compared.
func CheckBriefs(ctx context.Context, store graphrag.Store) (int, error) {
	bs, ok := store.(briefStore)
	if !ok {
		return 0, fmt.Errorf("%T has no entity briefs", store)
	}
	docs, err := store.Documents(ctx)
	if err != nil {
		return 0, err
	}
	var chunkIDs, docIDs []string
	for _, d := range docs {
		docIDs = append(docIDs, d.ID)
		chunks, err := store.DocumentChunks(ctx, d.ID)
		if err != nil {
			return 0, err
		}
		for _, c := range chunks {
			chunkIDs = append(chunkIDs, c.ID)
		}
	}
	sg, err := store.Subgraph(ctx, graphrag.SubgraphQuery{ChunkIDs: chunkIDs, PerEntity: 1})
	if err != nil {
		return 0, err
	}
	var keys []string
	for _, id := range chunkIDs {
		keys = append(keys, sg.ChunkEntities[id]...)
	}
	keys = graphrag.SortedUnion(keys)
	full, err := store.Entities(ctx, keys)
	if err != nil {
		return 0, err
	}
	for _, ask := range append([][]string{docIDs, nil}, splitEach(docIDs)...) {
		briefs, err := bs.EntityBriefs(ctx, keys, ask)
		if err != nil {
			return 0, err
		}
		if err := sameBriefs(full, briefs, ask); err != nil {
			return 0, fmt.Errorf("entity briefs for documents %v: %w", ask, err)
		}
	}
	for _, e := range full {
		found, err := store.SearchEntities(ctx, e.Name, 8)
		if err != nil {
			return 0, err
		}
		briefs, err := bs.SearchEntityBriefs(ctx, e.Name, 8, docIDs[:1])
		if err != nil {
			return 0, err
		}
		if err := sameBriefs(found, briefs, docIDs[:1]); err != nil {
			return 0, fmt.Errorf("search %q: %w", e.Name, err)
		}
		edges, err := store.Neighborhood(ctx, []string{e.Key}, 1, 40)
		if err != nil {
			return 0, err
		}
		var want []string
		for _, ed := range edges {
			want = append(want, ed.SourceName, ed.TargetName)
		}
		got, err := bs.NeighbourNames(ctx, e.Key, 40)
		if err != nil {
			return 0, err
		}
		if !slices.Equal(got, want) {
			return 0, fmt.Errorf("neighbour names of %q: %q, Neighborhood gives %q", e.Key, got, want)
		}
	}
	return len(full), nil
}

func splitEach(ids []string) [][]string {
	out := make([][]string, len(ids))
	for i, id := range ids {
		out[i] = []string{id}
	}
	return out
}

// sameBriefs compares entity briefs read for docs with the full entities.
func sameBriefs(full, briefs []graphrag.Entity, docs []string) error {
	if len(full) != len(briefs) {
		return fmt.Errorf("%d briefs for %d entities", len(briefs), len(full))
	}
	for i, f := range full {
		b := briefs[i]
		wantDocs := slices.DeleteFunc(slices.Clone(f.DocIDs), func(d string) bool { return !slices.Contains(docs, d) })
		if b.Key != f.Key || b.Name != f.Name || b.Type != f.Type || b.Description != f.Description ||
			!slices.Equal(graphrag.SortedUnion(b.Aliases), graphrag.SortedUnion(f.Aliases)) || len(b.ChunkIDs) > 0 ||
			!slices.Equal(graphrag.SortedUnion(b.DocIDs), wantDocs) {
			return fmt.Errorf("brief %+v, entity %+v (documents %v)", b, f, wantDocs)
		}
	}
	return nil
}
