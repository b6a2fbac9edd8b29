package graphrag_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// clique relates every pair of names, each relation supported by the given chunk.
func clique(chunk string, names ...string) []graphrag.Link {
	var out []graphrag.Link
	for i, a := range names {
		for _, b := range names[i+1:] {
			out = append(out, graphrag.Link{ID: a + "-" + b, Source: a, Target: b, ChunkIDs: []string{chunk}})
		}
	}
	return out
}

func members(cs []graphrag.Community) [][]string {
	out := make([][]string, len(cs))
	for i, c := range cs {
		out[i] = slices.Sorted(slices.Values(c.Entities))
	}
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

func TestDetectCommunities(t *testing.T) {
	// Two dense groups joined by one weak link, and a separate pair: three communities.
	links := slices.Concat(clique("c1", "a", "b", "c", "d"), clique("c2", "e", "f", "g", "h"), clique("c3", "x", "y"),
		[]graphrag.Link{{ID: "d-e", Source: "d", Target: "e"}})
	cs := graphrag.DetectCommunities(links)
	want := [][]string{{"a", "b", "c", "d"}, {"e", "f", "g", "h"}, {"x", "y"}}
	if got := members(cs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("communities %v, want %v", got, want)
	}
	for _, c := range cs {
		if len(c.Entities) == 2 && (c.Weight != 1 || !slices.Equal(c.ChunkIDs, []string{"c3"}) || len(c.Relations) != 1) {
			t.Errorf("pair community %+v: want weight 1, chunk c3, one relation", c)
		}
		if len(c.Entities) == 4 && (c.Weight != 6 || len(c.Relations) != 6) {
			t.Errorf("group %v: weight %d and %d relations, want 6 and 6 (the weak link is between groups)", c.Entities, c.Weight, len(c.Relations))
		}
	}
	if cs[2].Weight > cs[0].Weight {
		t.Errorf("not ordered by weight: %d before %d", cs[0].Weight, cs[2].Weight)
	}

	again := graphrag.DetectCommunities(slices.Concat(links[len(links)-1:], links[:len(links)-1]))
	if fmt.Sprint(again) != fmt.Sprint(cs) {
		t.Errorf("the same links in another order gave other communities:\n%+v\n%+v", again, cs)
	}

	// A new passage in the pair's part of the graph: the pair's signature changes, the groups' stay.
	more := append(slices.Clone(links), graphrag.Link{ID: "x-z", Source: "x", Target: "z", ChunkIDs: []string{"c4"}})
	after := map[string]graphrag.Community{}
	for _, c := range graphrag.DetectCommunities(more) {
		after[c.ID] = c
	}
	for _, c := range cs {
		a, same := after[c.ID]
		if len(c.Entities) == 4 && (!same || a.Signature != c.Signature) {
			t.Errorf("group %v changed although nothing near it did", c.Entities)
		}
		if len(c.Entities) == 2 && same && a.Signature == c.Signature {
			t.Errorf("pair %v kept its signature after gaining a member", c.Entities)
		}
	}
	// More support for a relation inside a group changes that group's signature only.
	support := slices.Clone(links)
	support[0].ChunkIDs = []string{"c1", "c9"}
	before, now := holding(cs, "a"), holding(graphrag.DetectCommunities(support), "a")
	if now.ID != before.ID || now.Signature == before.Signature {
		t.Errorf("group of a: ID %s -> %s, signature %s -> %s; want the same ID and a new signature", before.ID, now.ID, before.Signature, now.Signature)
	}
	if got := graphrag.DetectCommunities(nil); len(got) != 0 {
		t.Errorf("communities of no links: %v", got)
	}
}

func holding(cs []graphrag.Community, key string) graphrag.Community {
	for _, c := range cs {
		if slices.Contains(c.Entities, key) {
			return c
		}
	}
	return graphrag.Community{}
}
