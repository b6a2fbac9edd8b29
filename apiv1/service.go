package apiv1

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// Store is what the read operations need of the knowledge store.
type Store interface {
	graphrag.DocumentReader
	Chunks(ctx context.Context, ids []string) ([]graphrag.Chunk, error)
	Entities(ctx context.Context, keys []string) ([]graphrag.Entity, error)
	SearchEntities(ctx context.Context, query string, k int) ([]graphrag.Entity, error)
	Neighborhood(ctx context.Context, keys []string, hops, limit int) ([]graphrag.Edge, error)
}

// Retriever is the search behind `hopwise search` (graphrag.Retriever).
type Retriever interface {
	Retrieve(ctx context.Context, queries []graphrag.Query, opt graphrag.RetrieveOptions) (graphrag.Retrieval, error)
}

// Service runs the read operations every interface offers.
type Service struct {
	Store     Store
	Retriever Retriever
}

// Bounds of the operations: a caller asks for fewer, never more.
const (
	MaxSearchResults = 50
	MaxPageSize      = 200
	DefaultPageSize  = 50
	MaxEntities      = 50
	MaxRelations     = 200
	searchFacts      = 8
)

// ErrBadInput marks input a caller must change; its message says how.
var ErrBadInput = errors.New("bad input")

func badInput(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(format, args...))
}

// Search is hybrid search (BM25 and vectors) fused with the graph walk, and the graph facts the walk
// reached: the same as `hopwise search`. k passages at most (10 when not positive).
func (s Service) Search(ctx context.Context, query string, k int) (SearchResult, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return SearchResult{}, badInput("give a query")
	}
	if k <= 0 {
		k = 10
	}
	res, err := s.Retriever.Retrieve(ctx, []graphrag.Query{{Text: query}}, graphrag.RetrieveOptions{
		K: min(k, MaxSearchResults), Graph: true, Facts: searchFacts})
	if err != nil {
		return SearchResult{}, fmt.Errorf("apiv1: search: %w", err)
	}
	out := SearchResult{Query: query, Passages: make([]Passage, len(res.Chunks)), Facts: make([]Fact, len(res.Facts))}
	for i, c := range res.Chunks {
		out.Passages[i] = newPassage(c.Chunk)
		out.Passages[i].Rank, out.Passages[i].Score = c.Rank, c.Score
	}
	for i, f := range res.Facts {
		out.Facts[i] = Fact{ID: f.ID, Sentence: f.Sentence, Type: f.Relation.Type, Source: f.Relation.SourceName,
			Target: f.Relation.TargetName, Values: f.Relation.Values, Hop: f.Hop, Passages: nonNil(f.Relation.ChunkIDs)}
	}
	return out, nil
}

// Documents is the page of documents from offset, at most limit of them (DefaultPageSize when not
// positive, MaxPageSize at most), newest first.
func (s Service) Documents(ctx context.Context, offset, limit int) (DocumentPage, error) {
	docs, err := s.Store.Documents(ctx)
	if err != nil {
		return DocumentPage{}, fmt.Errorf("apiv1: documents: %w", err)
	}
	part, next, err := Page(docs, offset, limit)
	if err != nil {
		return DocumentPage{}, err
	}
	page := DocumentPage{Documents: make([]Document, len(part)), Total: len(docs), Offset: offset, NextOffset: next}
	for i, d := range part {
		page.Documents[i] = NewDocument(d)
	}
	return page, nil
}

// Document is one document by ID or by file name (graphrag.FindDocument).
func (s Service) Document(ctx context.Context, idOrName string) (Document, error) {
	d, err := graphrag.FindDocument(ctx, s.Store, idOrName)
	if err != nil {
		return Document{}, err
	}
	return NewDocument(d), nil
}

// Passage is one passage by ID, with its document's name.
func (s Service) Passage(ctx context.Context, id string) (Passage, error) {
	chunks, err := s.Store.Chunks(ctx, []string{strings.TrimSpace(id)})
	if err != nil {
		return Passage{}, fmt.Errorf("apiv1: passage: %w", err)
	}
	if len(chunks) == 0 {
		return Passage{}, fmt.Errorf("apiv1: passage %q: %w", id, graphrag.ErrNotFound)
	}
	return newPassage(chunks[0]), nil
}

// Entities finds entities by name or alias, best first, k at most (20 when not positive).
func (s Service) Entities(ctx context.Context, query string, k int) ([]Entity, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, badInput("give a name to search for")
	}
	if k <= 0 {
		k = 20
	}
	found, err := s.Store.SearchEntities(ctx, query, min(k, MaxEntities))
	if err != nil {
		return nil, fmt.Errorf("apiv1: entities: %w", err)
	}
	return entities(found), nil
}

// Neighbourhood is the relations within hops (1 or 2) of the entities with these keys, nearest first,
// limit at most (60 when not positive), with the entities they join.
func (s Service) Neighbourhood(ctx context.Context, keys []string, hops, limit int) (Neighbourhood, error) {
	switch {
	case len(keys) == 0:
		return Neighbourhood{}, badInput("give at least one entity key")
	case hops != 1 && hops != 2:
		return Neighbourhood{}, badInput("hops is 1 or 2")
	}
	if limit <= 0 {
		limit = 60
	}
	edges, err := s.Store.Neighborhood(ctx, keys, hops, min(limit, MaxRelations))
	if err != nil {
		return Neighbourhood{}, fmt.Errorf("apiv1: neighbourhood: %w", err)
	}
	out := Neighbourhood{Relations: make([]Relation, len(edges))}
	nodes := append([]string(nil), keys...)
	for i, e := range edges {
		out.Relations[i] = Relation{ID: e.ID, Source: e.Source, Target: e.Target, Type: e.Type,
			Label: strings.ToLower(strings.ReplaceAll(e.Type, "_", " ")), Values: e.Values, Hop: e.Hop,
			Documents: e.DocIDs, Passages: e.ChunkIDs}
		nodes = append(nodes, e.Source, e.Target)
	}
	ents, err := s.Store.Entities(ctx, unique(nodes))
	if err != nil {
		return Neighbourhood{}, fmt.Errorf("apiv1: neighbourhood entities: %w", err)
	}
	out.Entities = entities(ents)
	return out, nil
}

func entities(es []graphrag.Entity) []Entity {
	out := make([]Entity, len(es))
	for i, e := range es {
		out[i] = Entity{Key: e.Key, Name: e.Name, Type: e.Type}
	}
	return out
}

func unique(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// Entity is the entity with this key or name (its normalized key), else the best match of an entity
// search for it.
func (s Service) Entity(ctx context.Context, nameOrKey string) (Entity, error) {
	nameOrKey = strings.TrimSpace(nameOrKey)
	if nameOrKey == "" {
		return Entity{}, badInput("give an entity's name or key")
	}
	found, err := s.Store.Entities(ctx, unique([]string{nameOrKey, graphrag.NormalizeKey(nameOrKey)}))
	if err == nil && len(found) == 0 {
		found, err = s.Store.SearchEntities(ctx, nameOrKey, 1)
	}
	if err != nil {
		return Entity{}, fmt.Errorf("apiv1: entity %q: %w", nameOrKey, err)
	}
	if len(found) == 0 {
		return Entity{}, fmt.Errorf("apiv1: no entity named %q: %w", nameOrKey, graphrag.ErrNotFound)
	}
	return entities(found[:1])[0], nil
}
