package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchText ranks embedded chunks by BM25 over their text through the chunk full-text index; chunks
// still pending are not searchable yet. query is plain words: every Lucene special character is escaped,
// and a query without any word finds nothing.
func (s *Store) SearchText(ctx context.Context, text string, k int) ([]graphrag.ScoredChunk, error) {
	s.searchMu.RLock() // reads are read-committed: a replace must not land mid-search
	defer s.searchMu.RUnlock()
	q := luceneQuery(text)
	if q == "" || k <= 0 {
		return nil, nil
	}
	// Pending chunks are rare once ingest is done, so a few more hits than asked are fetched and pending
	// ones dropped, with the staged ones and those a concurrent delete left without properties (reads are
	// read-committed: a replace's delete may land mid-query), in the statement: only the k kept are sent.
	// Only when that leaves too few is the fetch widened.
	for fetch := 4*k + 16; ; fetch *= 8 {
		found, fetched, err := s.search(ctx, `CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node AS c, score
			`+searchableHits, map[string]any{"index": chunkTextIndex, "query": q, "fetch": fetch, "k": k})
		if err != nil {
			return nil, fmt.Errorf("neo4j: search text: %w", err)
		}
		if len(found) == k || fetched < fetch {
			return found, nil
		}
	}
}

// SearchVector ranks embedded chunks by cosine similarity to vec. The vector index (HNSW over quantized
// vectors) finds the candidates, k+graphrag.RerankExtra(k) of them, and each is scored again exactly, by
// cosine with the vector the chunk holds, in the same statement: the index's own scores are those of its int8 codes,
// off by up to a few hundredths (measured at 64 dimensions), which reorders close hits (the embedded store
// ranks its candidates exactly too, so both stores rank alike). Scores are cosine similarities in [-1, 1]
// (Neo4j's similarity functions give (1 + cosine) / 2).
func (s *Store) SearchVector(ctx context.Context, vec []float32, k int) ([]graphrag.ScoredChunk, error) {
	s.searchMu.RLock()
	defer s.searchMu.RUnlock()
	sp := s.space.Load()
	if len(vec) != sp.Dim {
		// A query embedded just before a re-embedding committed reads the slot it replaced (reindex.go).
		if sp = s.previousSpace(len(vec)); sp == nil {
			return nil, fmt.Errorf("neo4j: search vector: query has %d dimensions, the index %d: %w",
				len(vec), s.embedDim(), graphrag.ErrDimension)
		}
	}
	if k <= 0 || isZero(vec) {
		return nil, nil
	}
	// A chunk whose vector went or changed dimension since the index was read (a re-embedding's slot
	// dropped meanwhile) keeps the index's score. Staged chunks (a new version being ingested) are in
	// the index but not searchable: only while some exist does a search fetch more and drop them.
	rescored := `CALL db.index.vector.queryNodes($index, $fetch, $vec) YIELD node AS c, score
			WITH c, score, c.` + sp.property() + ` AS v
			WITH c, CASE WHEN size(v) = size($vec) THEN 2 * vector.similarity.cosine(v, $vec) - 1
				ELSE 2 * score - 1 END AS score
			` + searchableHits
	for fetch := k + graphrag.RerankExtra(k); ; fetch *= 4 {
		found, fetched, err := s.search(ctx, rescored, map[string]any{"index": sp.index(), "vec": float64s(vec), "fetch": fetch, "k": k})
		if err != nil {
			return nil, fmt.Errorf("neo4j: search vector: %w", err)
		}
		if len(found) == k || fetched < fetch {
			return found, nil
		}
	}
}

// searchableHits ends a search statement whose rows are hits c with their score: ordered best first (ties
// by ID), the first $k that are searchable (not pending, not staged, not deleted while read: a delete
// leaves a node without properties to a read-committed read) with their documents, and how many hits the
// index gave, in a row of its own (chunk null) so that it comes back when none is searchable.
const searchableHits = `WITH c, score ORDER BY score DESC, c.id
			WITH collect({c: c, score: score}) AS hits
			WITH size(hits) AS fetched, [h IN hits WHERE h.c.id IS NOT NULL AND NOT coalesce(h.c.staged, false)
				AND coalesce(h.c.status, '') <> 'pending'][..$k] AS kept
			UNWIND [null] + kept AS h
			WITH fetched, h.c AS c, h.score AS score
			OPTIONAL MATCH (d:Document)-[:HAS_CHUNK]->(c)
			RETURN CASE WHEN c IS NULL THEN null ELSE ` + chunkProjection + ` END AS chunk, score, fetched
			ORDER BY score DESC, c.id`

// search runs a statement ending in searchableHits and returns the chunks it kept, ranked, and how many
// hits the index gave.
func (s *Store) search(ctx context.Context, cypher string, params map[string]any) (found []graphrag.ScoredChunk, fetched int, err error) {
	records, err := s.readRecords(ctx, cypher, params)
	if err != nil {
		return nil, 0, err
	}
	found = make([]graphrag.ScoredChunk, 0, len(records))
	for _, r := range records {
		fetched = asInt(r.Values[2])
		if r.Values[0] == nil {
			continue
		}
		found = append(found, graphrag.ScoredChunk{Chunk: chunkFrom(asMap(r.Values[0])), Score: asFloat(r.Values[1]), Rank: len(found) + 1})
	}
	return found, fetched, nil
}

func isZero(vec []float32) bool {
	for _, x := range vec {
		if x != 0 {
			return false
		}
	}
	return true
}
