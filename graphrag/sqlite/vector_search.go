package sqlite

import (
	"context"
	"fmt"
	"sort"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchVector ranks embedded chunks by cosine similarity to vec, best first: the vector index finds the
// candidates from its compact codes (vector_index.go), and the best of them are ranked again exactly, by
// cosine with their float32 vectors as the file holds them. A vector of another dimension fails with
// ErrDimension; a zero vector finds nothing.
func (s *Store) SearchVector(ctx context.Context, vec []float32, k int) ([]graphrag.ScoredChunk, error) {
	if k <= 0 {
		return nil, nil
	}
	s.swapMu.RLock()
	defer s.swapMu.RUnlock()
	index, exact := s.vectors, true
	if len(vec) != s.embedDim() {
		// A query embedded just before a re-embedding committed reads the vectors it replaced (reindex.go);
		// the file no longer holds them, so their codes' scores stand.
		if index, exact = s.previousIndex(len(vec)), false; index == nil {
			return nil, fmt.Errorf("sqlite: search vector: query has %d values, the store %d: %w",
				len(vec), s.embedDim(), graphrag.ErrDimension)
		}
	}
	hits := index.search(vec, k+graphrag.RerankExtra(k))
	if len(hits) == 0 {
		return nil, nil
	}
	// Chunks deleted since the search are not read, so a deleted document is never returned.
	found, err := s.chunksBySeq(ctx, hits)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search vector: %w", err)
	}
	unit := make([]float32, len(vec))
	normalize(unit, vec)
	out := make([]graphrag.ScoredChunk, 0, len(found))
	for _, h := range hits {
		f, ok := found[h.seq]
		if !ok {
			continue
		}
		score := h.score
		// A re-embedding that committed since the search holds vectors of another dimension (it swaps
		// the index right after its commit): the codes' score stands for them.
		if v, err := decodeVector(f.vec, len(vec)); exact && err == nil {
			normalize(v, v)
			score = dot(unit, v)
		}
		out = append(out, graphrag.ScoredChunk{Chunk: f.chunk, Score: float64(score)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	out = out[:min(k, len(out))]
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
}

// seqChunk is a chunk read by seq, with its vector as stored.
type seqChunk struct {
	chunk graphrag.Chunk
	vec   []byte
}

const chunksBySeqQuery = `SELECT c.id, c.doc_id, c.ordinal, c.section, c.text, c.tokens, c.status, c.error,
	d.name, d.title, c.page, c.seq, c.embedding FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.seq IN `

// chunksBySeq reads the chunks of these hits with their vectors; seqs no longer in the file are missing.
func (s *Store) chunksBySeq(ctx context.Context, hits []hit) (map[int64]seqChunk, error) {
	seqs := make([]int64, len(hits))
	for i, h := range hits {
		seqs[i] = h.seq
	}
	query, args := seqList(chunksBySeqQuery, seqs)
	rows, err := s.readStmts.query(ctx, s.reader, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]seqChunk, len(hits))
	for rows.Next() {
		var seq int64
		var vec []byte
		c, err := scanChunk(rows, &seq, &vec)
		if err != nil {
			return nil, err
		}
		out[seq] = seqChunk{chunk: c, vec: vec}
	}
	return out, rows.Err()
}

// queryInts returns the first column of every row, as integers.
func queryInts(ctx context.Context, q queryer, query string, args ...any) ([]int64, error) {
	return queryColumn[int64](ctx, q, query, args...)
}

// queryColumn returns the first column of every row, scanned as T.
func queryColumn[T any](ctx context.Context, q queryer, query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
