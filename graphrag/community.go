package graphrag

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/community"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// Link is one relation of the graph as community detection reads it: its ends and the passages that
// support it.
type Link struct {
	ID, Source, Target string
	ChunkIDs           []string
}

// Community is a group of entities more densely related to each other than to the rest of the graph, found
// by Louvain modularity over the relations, with the passages its relations come from and, once the model
// has written one, its summary.
type Community struct {
	// ID is derived from the members: the same entities give the same ID whenever it is computed.
	ID string
	// Signature changes when the members, the relations among them or the passages those come from change:
	// a summary written for another signature describes another community.
	Signature string
	Entities  []string // member keys, most related first
	Relations []string // IDs of the relations among the members, best supported first
	ChunkIDs  []string // the passages those relations come from, most used first, at most MaxCommunityChunks
	Weight    int      // passages supporting the relations among the members, counted once a relation
	// Title and Summary are the model's report (SummarizeCommunities); empty until one is written for
	// this Signature.
	Title, Summary string
	SummarizedAt   time.Time
}

// Summarized reports whether the community has a summary for its current members and relations.
func (c Community) Summarized() bool { return c.Summary != "" }

// MaxCommunityChunks bounds the passages a community keeps for its summary's citations.
const MaxCommunityChunks = 20

// louvainSeed makes detection repeatable: the same links always give the same communities.
const louvainSeed = 18

// DetectCommunities partitions the entities the links join into communities: Louvain (gonum) at
// resolution 1, run on each connected part of the graph on its own, with nodes numbered by key, so a part
// that no document touched keeps exactly its communities when others change. Every link counts with the
// number of passages supporting it. Communities of fewer than two entities are left out. The result is
// ordered by weight, then size, then ID.
func DetectCommunities(links []Link) []Community {
	keys, index := linkKeys(links)
	g := simple.NewWeightedUndirectedGraph(0, 0)
	for i := range keys {
		g.AddNode(simple.Node(i))
	}
	weight := map[[2]int64]float64{}
	for _, l := range links {
		a, b := index[l.Source], index[l.Target]
		if a == b {
			continue
		}
		e := [2]int64{min(a, b), max(a, b)}
		weight[e] += float64(max(1, len(l.ChunkIDs)))
	}
	for e, w := range weight {
		g.SetWeightedEdge(g.NewWeightedEdge(simple.Node(e[0]), simple.Node(e[1]), w))
	}
	var groups [][]string
	for _, part := range topo.ConnectedComponents(g) {
		if len(part) < 2 {
			continue
		}
		groups = append(groups, partCommunities(part, keys, weight)...)
	}
	return communitiesOf(groups, links)
}

// linkKeys numbers the entities of links in key order.
func linkKeys(links []Link) ([]string, map[string]int64) {
	var keys []string
	for _, l := range links {
		keys = append(keys, l.Source, l.Target)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	index := make(map[string]int64, len(keys))
	for i, k := range keys {
		index[k] = int64(i)
	}
	return keys, index
}

// partCommunities runs Louvain on one connected part, renumbered 0..n-1 by key order.
func partCommunities(part []graph.Node, keys []string, weight map[[2]int64]float64) [][]string {
	ids := make([]int64, len(part))
	for i, n := range part {
		ids[i] = n.ID()
	}
	slices.Sort(ids)
	local := make(map[int64]int64, len(ids))
	for i, id := range ids {
		local[id] = int64(i)
	}
	sub := simple.NewWeightedUndirectedGraph(0, 0)
	for i := range ids {
		sub.AddNode(simple.Node(i))
	}
	for e, w := range weight {
		a, okA := local[e[0]]
		b, okB := local[e[1]]
		if okA && okB {
			sub.SetWeightedEdge(sub.NewWeightedEdge(simple.Node(a), simple.Node(b), w))
		}
	}
	var out [][]string
	for _, members := range community.Modularize(sub, 1, rand.NewPCG(louvainSeed, uint64(len(ids)))).Communities() {
		if len(members) < 2 {
			continue
		}
		names := make([]string, len(members))
		for i, n := range members {
			names[i] = keys[ids[n.ID()]]
		}
		out = append(out, names)
	}
	return out
}

// communitiesOf describes each group of entity keys with the links among its members.
func communitiesOf(groups [][]string, links []Link) []Community {
	member := map[string]int{}
	for i, g := range groups {
		for _, k := range g {
			member[k] = i
		}
	}
	inside := make([][]Link, len(groups))
	for _, l := range links {
		i, ok := member[l.Source]
		if j, ok2 := member[l.Target]; ok && ok2 && i == j && l.Source != l.Target {
			inside[i] = append(inside[i], l)
		}
	}
	out := make([]Community, 0, len(groups))
	for i, g := range groups {
		out = append(out, describeCommunity(g, inside[i]))
	}
	slices.SortFunc(out, func(a, b Community) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(len(b.Entities), len(a.Entities)), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// describeCommunity orders a community's members, relations and passages and derives its ID and signature.
func describeCommunity(keys []string, links []Link) Community {
	degree := map[string]int{}
	uses := map[string]int{}
	c := Community{}
	slices.SortFunc(links, func(a, b Link) int {
		return cmp.Or(cmp.Compare(len(b.ChunkIDs), len(a.ChunkIDs)), cmp.Compare(a.ID, b.ID))
	})
	sig := sha256.New()
	for _, l := range links {
		w := max(1, len(l.ChunkIDs))
		degree[l.Source] += w
		degree[l.Target] += w
		c.Weight += w
		c.Relations = append(c.Relations, l.ID)
		for _, ch := range l.ChunkIDs {
			uses[ch]++
		}
	}
	c.Entities = slices.Clone(keys)
	slices.SortFunc(c.Entities, func(a, b string) int { return cmp.Or(cmp.Compare(degree[b], degree[a]), cmp.Compare(a, b)) })
	chunks := make([]string, 0, len(uses))
	for ch := range uses {
		chunks = append(chunks, ch)
	}
	slices.SortFunc(chunks, func(a, b string) int { return cmp.Or(cmp.Compare(uses[b], uses[a]), cmp.Compare(a, b)) })
	c.ChunkIDs = chunks[:min(len(chunks), MaxCommunityChunks)]

	sorted := slices.Sorted(slices.Values(keys))
	id := sha256.Sum256([]byte(strings.Join(sorted, "\x00")))
	c.ID = "com-" + hex.EncodeToString(id[:8])
	sig.Write(id[:])
	byID := slices.Clone(links)
	slices.SortFunc(byID, func(a, b Link) int { return cmp.Compare(a.ID, b.ID) })
	for _, l := range byID {
		sig.Write([]byte(l.ID + "\x00" + strings.Join(slices.Sorted(slices.Values(l.ChunkIDs)), ",") + "\x00"))
	}
	c.Signature = hex.EncodeToString(sig.Sum(nil)[:12])
	return c
}
