package neo4j

import (
	"context"
	"fmt"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
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
	// read-committed: a replace's delete may land mid-query); only when that leaves too few is the fetch widened.
	for fetch := 4*k + 16; ; fetch *= 8 {
		hits, err := s.search(ctx, `CALL db.index.fulltext.queryNodes($index, $query, {limit: $fetch}) YIELD node AS c, score
			OPTIONAL MATCH (d:Document)-[:HAS_CHUNK]->(c)
			RETURN CASE WHEN c.staged OR c.id IS NULL THEN {status: 'pending'} ELSE `+chunkProjection+` END AS chunk, score
			ORDER BY score DESC, c.id`, map[string]any{"index": chunkTextIndex, "query": q, "fetch": fetch})
		if err != nil {
			return nil, fmt.Errorf("neo4j: search text: %w", err)
		}
		if found := searchable(hits, k); len(found) == k || len(hits) < fetch {
			return found, nil
		}
	}
}

// SearchVector ranks embedded chunks by cosine similarity to vec through the vector index (approximate,
// HNSW). Scores are cosine similarities in [-1, 1]; Neo4j's own score is (1 + cosine) / 2.
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
	// Staged chunks (a new version being ingested) are in the index but not searchable: only while some
	// exist does a search fetch more than k and drop them.
	for fetch := k; ; fetch *= 4 {
		hits, err := s.search(ctx, `CALL db.index.vector.queryNodes($index, $k, $vec) YIELD node AS c, score
			OPTIONAL MATCH (d:Document)-[:HAS_CHUNK]->(c)
			RETURN CASE WHEN c.staged OR c.id IS NULL THEN {status: 'pending'} ELSE `+chunkProjection+` END AS chunk, 2 * score - 1 AS score
			ORDER BY score DESC, c.id`, map[string]any{"index": sp.index(), "vec": float64s(vec), "k": fetch})
		if err != nil {
			return nil, fmt.Errorf("neo4j: search vector: %w", err)
		}
		if found := searchable(hits, k); len(found) == k || len(hits) < fetch {
			return found, nil
		}
	}
}

// searchable returns the first k hits that are not pending (the searches return staged chunks, and those
// deleted while read, as pending too), ranked anew.
func searchable(hits []graphrag.ScoredChunk, k int) []graphrag.ScoredChunk {
	found := make([]graphrag.ScoredChunk, 0, k)
	for _, h := range hits {
		if h.Status != graphrag.ChunkPending && len(found) < k {
			h.Rank = len(found) + 1
			found = append(found, h)
		}
	}
	return found
}

// search runs a query returning chunk and score columns, best first, and ranks the chunks.
func (s *Store) search(ctx context.Context, cypher string, params map[string]any) ([]graphrag.ScoredChunk, error) {
	var found []graphrag.ScoredChunk
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, cypher, params)
		if err != nil {
			return err
		}
		found = make([]graphrag.ScoredChunk, 0, len(records))
		for i, r := range records {
			found = append(found, graphrag.ScoredChunk{Chunk: chunkFrom(asMap(r.Values[0])), Score: asFloat(r.Values[1]), Rank: i + 1})
		}
		return nil
	})
	return found, err
}

func isZero(vec []float32) bool {
	for _, x := range vec {
		if x != 0 {
			return false
		}
	}
	return true
}
