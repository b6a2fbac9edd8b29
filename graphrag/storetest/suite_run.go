// Package storetest is the contract suite every graphrag.Store passes: the embedded SQLite store and the
// Neo4j store run the same subtests, so the rest of Hopwise can rely on one behaviour.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// dim is the embedding dimension of every store the suite asks for: small, so vectors are written by hand.
const dim = 8

// Run runs every contract test; newStore returns an empty store of dimension dim, cleaned up by the caller.
// Subtests run one after another, each on a new store, so a back end may reuse one database between them.
func Run(t *testing.T, newStore func(t *testing.T, dim int) graphrag.Store) {
	groups := []struct {
		name  string
		cases []testCase
	}{
		{"Documents", documentCases},
		{"Chunks", chunkCases},
		{"SearchVector", vectorCases},
		{"SearchText", textCases},
		{"Graph", graphCases},
		{"Neighborhood", neighborhoodCases},
		{"Subgraph", subgraphCases},
		{"DeleteDocument", deleteCases},
		{"RetryFailedChunks", retryCases},
		{"ReplaceDocument", replaceCases},
		{"Reembed", reindexCases},
		{"Concurrency", concurrencyCases},
		{"Communities", communityCases},
		{"Edits", editCases},
		{"Conversations", conversationCases},
		{"Runs", runCases},
		{"Workspaces", workspaceCases},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.cases {
				t.Run(tc.name, func(t *testing.T) {
					tc.run(t, &fixture{t: t, ctx: t.Context(), s: newStore(t, dim)})
				})
			}
		})
	}
}

// testCase is one contract test on a fresh store.
type testCase struct {
	name string
	run  func(t *testing.T, f *fixture)
}

// fixture is a store under test with helpers that fail the test on any unexpected error.
type fixture struct {
	t   *testing.T
	ctx context.Context
	s   graphrag.Store
}

// doc stores a document whose bytes are content and returns it.
func (f *fixture) doc(name, content string) graphrag.Document {
	f.t.Helper()
	return f.docAt(name, content, time.Now().UTC())
}

func (f *fixture) docAt(name, content string, created time.Time) graphrag.Document {
	f.t.Helper()
	hash := graphrag.ContentHash([]byte(content))
	d := graphrag.Document{
		ID: graphrag.DocumentID(hash), Name: name, Format: "txt", Hash: hash, Size: int64(len(content)),
		Status: graphrag.StatusQueued, CreatedAt: created, UpdatedAt: created,
	}
	stored, created2, err := f.s.PutDocument(f.ctx, d, []byte(content))
	if err != nil || !created2 {
		f.t.Fatalf("PutDocument(%s) = created %v, %v; want created", name, created2, err)
	}
	return stored
}

// chunks stores one chunk per text (ordinal i, ID graphrag.ChunkID) and returns them.
func (f *fixture) chunks(doc graphrag.Document, texts ...string) []graphrag.Chunk {
	f.t.Helper()
	cs := make([]graphrag.Chunk, len(texts))
	for i, text := range texts {
		cs[i] = graphrag.Chunk{
			ID: graphrag.ChunkID(doc.ID, i), DocID: doc.ID, Ordinal: i, Section: []string{doc.Name, fmt.Sprint("part ", i)},
			Text: text, Tokens: len(text) / 4,
		}
	}
	if err := f.s.PutChunks(f.ctx, doc.ID, cs); err != nil {
		f.t.Fatalf("PutChunks(%s): %v", doc.ID, err)
	}
	return cs
}

// embed stores the vectors by chunk ID.
func (f *fixture) embed(vectors map[string][]float32) {
	f.t.Helper()
	if err := f.s.SetEmbeddings(f.ctx, vectors); err != nil {
		f.t.Fatalf("SetEmbeddings: %v", err)
	}
}

// embedAll gives every chunk its own vector, so the chunks become searchable.
func (f *fixture) embedAll(cs []graphrag.Chunk) {
	f.t.Helper()
	vectors := make(map[string][]float32, len(cs))
	for i, c := range cs {
		v := axis(i % dim)
		v[(i+1)%dim] = float32(i/dim+1) / 10
		vectors[c.ID] = v
	}
	f.embed(vectors)
}

// extract puts the entities and relations found in a chunk.
func (f *fixture) extract(chunkID string, entities []graphrag.Entity, relations ...graphrag.Relation) {
	f.t.Helper()
	x := graphrag.Extraction{ChunkID: chunkID, Entities: entities, Relations: relations}
	if err := f.s.PutExtraction(f.ctx, x); err != nil {
		f.t.Fatalf("PutExtraction(%s): %v", chunkID, err)
	}
}

func (f *fixture) stats() graphrag.Stats {
	f.t.Helper()
	st, err := f.s.Stats(f.ctx)
	if err != nil {
		f.t.Fatalf("Stats: %v", err)
	}
	return st
}

// wantStats fails the test when the store's counts differ from want.
func (f *fixture) wantStats(when string, want graphrag.Stats) {
	f.t.Helper()
	if got := f.stats(); got != want {
		f.t.Errorf("Stats %s = %+v, want %+v", when, got, want)
	}
}

func (f *fixture) document(id string) graphrag.Document {
	f.t.Helper()
	d, err := f.s.Document(f.ctx, id)
	if err != nil {
		f.t.Fatalf("Document(%s): %v", id, err)
	}
	return d
}

func (f *fixture) entity(key string) graphrag.Entity {
	f.t.Helper()
	es, err := f.s.Entities(f.ctx, []string{key})
	if err != nil || len(es) != 1 {
		f.t.Fatalf("Entities(%q) = %d entities, %v; want 1", key, len(es), err)
	}
	return es[0]
}

func (f *fixture) neighborhood(keys []string, hops, limit int) []graphrag.Edge {
	f.t.Helper()
	edges, err := f.s.Neighborhood(f.ctx, keys, hops, limit)
	if err != nil {
		f.t.Fatalf("Neighborhood(%q, %d, %d): %v", keys, hops, limit, err)
	}
	return edges
}

func (f *fixture) searchText(query string, k int) []graphrag.ScoredChunk {
	f.t.Helper()
	got, err := f.s.SearchText(f.ctx, query, k)
	if err != nil {
		f.t.Fatalf("SearchText(%q): %v", query, err)
	}
	return got
}

func (f *fixture) searchVector(vec []float32, k int) []graphrag.ScoredChunk {
	f.t.Helper()
	got, err := f.s.SearchVector(f.ctx, vec, k)
	if err != nil {
		f.t.Fatalf("SearchVector: %v", err)
	}
	return got
}

// ent is an entity named name, keyed by graphrag.NormalizeKey as the resolver does.
func ent(name, typ, description string, aliases ...string) graphrag.Entity {
	return graphrag.Entity{
		Key: graphrag.NormalizeKey(name), Name: name, Type: typ, Description: description,
		Aliases: append([]string{name}, aliases...),
	}
}

// rel is the relation typ from source to target with its deterministic ID.
func rel(source graphrag.Entity, typ string, target graphrag.Entity, values map[string]any) graphrag.Relation {
	return graphrag.Relation{
		ID: graphrag.RelationID(source.Key, typ, target.Key), Source: source.Key, Target: target.Key,
		SourceName: source.Name, TargetName: target.Name, Type: typ, Values: values,
		Description: fmt.Sprintf("%s %s %s", source.Name, typ, target.Name),
	}
}

// axis is the unit vector along dimension i.
func axis(i int) []float32 {
	v := make([]float32, dim)
	v[i] = 1
	return v
}

// ids lists the chunk IDs of search results in rank order.
func ids(results []graphrag.ScoredChunk) []string {
	out := make([]string, len(results))
	for i, r := range results {
		out[i] = r.ID
	}
	return out
}

// edgeIDs lists the relation IDs of edges in order.
func edgeIDs(edges []graphrag.Edge) []string {
	out := make([]string, len(edges))
	for i, e := range edges {
		out[i] = e.ID
	}
	return out
}

// sameSet reports whether a and b hold the same strings, ignoring order and repeats.
func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// wantErr fails the test unless err wraps target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one wrapping %v", what, err, target)
	}
}

// checkRanks fails the test unless results are ranked 1..n with scores that never rise.
func checkRanks(t *testing.T, what string, results []graphrag.ScoredChunk) {
	t.Helper()
	for i, r := range results {
		if r.Rank != i+1 {
			t.Errorf("%s: result %d has Rank %d, want %d", what, i, r.Rank, i+1)
		}
		if i > 0 && r.Score > results[i-1].Score {
			t.Errorf("%s: score rises from %v to %v at rank %d", what, results[i-1].Score, r.Score, i+1)
		}
	}
}
