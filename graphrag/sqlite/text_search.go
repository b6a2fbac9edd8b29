package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchText ranks embedded chunks by BM25 over their text, best first, with Score = -bm25 (higher is
// better). Chunks still pending, and staged ones, are not searchable yet. A query with no words finds nothing.
func (s *Store) SearchText(ctx context.Context, query string, k int) ([]graphrag.ScoredChunk, error) {
	terms := ftsTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	terms, err := s.dropCommon(ctx, terms)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search text: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT c.id, c.doc_id, c.ordinal, c.section, c.text, c.tokens,
		c.status, c.error, d.name, d.title, c.page, f.rank
		FROM chunks_fts f JOIN chunks c ON c.seq = f.rowid JOIN documents d ON d.id = c.doc_id
		WHERE chunks_fts MATCH ? AND c.status <> 'pending' AND d.replaces = ''
		ORDER BY f.rank LIMIT ?`, ftsMatch(terms), k)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search text: %w", err)
	}
	defer rows.Close()
	var out []graphrag.ScoredChunk
	for rows.Next() {
		var bm25 float64
		c, err := scanChunk(rows, &bm25)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search text: %w", err)
		}
		out = append(out, graphrag.ScoredChunk{Chunk: c, Score: -bm25, Rank: len(out) + 1})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: search text: %w", err)
	}
	return out, nil
}

// pruneFrom is the number of chunks from which dropCommon looks at the terms; below it, scoring every
// match is cheap.
const pruneFrom = 1000

// dropCommon leaves out the single words found in more than half of the chunks, and those found in none,
// as long as another term that matches remains. FTS5's BM25 gives a word held by most chunks no weight
// (its IDF is clamped to almost zero), so the chunks that hold a rarer term keep their order; only chunks
// that match nothing but common words, ranked as noise, are no longer listed. Scoring such a word would
// cost a pass over most chunks: title words, which prefix every chunk of a document, are the usual case.
// Phrases (identifiers) are always kept.
func (s *Store) dropCommon(ctx context.Context, terms []ftsTerm) ([]ftsTerm, error) {
	if len(terms) < 2 {
		return terms, nil
	}
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&total); err != nil {
		return nil, err
	}
	if total < pruneFrom {
		return terms, nil
	}
	df := func(word string) (int, error) {
		var docs int
		err := tx.QueryRowContext(ctx, `SELECT doc FROM chunks_vocab WHERE term = ?`, word).Scan(&docs)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return docs, err
	}
	kept := make([]ftsTerm, 0, len(terms))
	matching := false
	for _, t := range terms {
		if t.phrase {
			// A phrase can match only where each of its words is found.
			found := true
			for _, part := range strings.Fields(t.text) {
				docs, err := df(part)
				if err != nil {
					return nil, err
				}
				found = found && docs > 0
			}
			kept = append(kept, t)
			matching = matching || found
			continue
		}
		docs, err := df(t.text)
		if err != nil {
			return nil, err
		}
		if docs > 0 && 2*docs <= total {
			kept = append(kept, t)
			matching = true
		}
	}
	if !matching {
		return terms, nil
	}
	return kept, nil
}
