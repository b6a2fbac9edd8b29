package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/graphrag"
)

// SearchText ranks embedded chunks by BM25 over their text, best first, with Score = -bm25 (higher is
// better). Chunks still pending, and staged ones, are not searchable yet. A query with no words finds nothing.
//
// The full-text index ranks its rows alone, with a limit, and only the rows it keeps are joined with their
// chunk and document: joining every match first read the text of each into the sort. Rows the chunk
// filters leave out (pending, staged) are made up for by asking the index for more.
func (s *Store) SearchText(ctx context.Context, query string, k int) ([]graphrag.ScoredChunk, error) {
	terms := ftsTerms(query)
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	terms, err := s.dropCommon(ctx, terms)
	if err != nil {
		return nil, fmt.Errorf("sqlite: search text: %w", err)
	}
	match := ftsMatch(terms)
	for limit := k + 16; ; limit *= 4 {
		out, ranked, err := s.searchText(ctx, match, k, limit)
		if err != nil {
			return nil, fmt.Errorf("sqlite: search text: %w", err)
		}
		if len(out) >= k || ranked < limit {
			return out, nil
		}
	}
}

// rankedQuery ranks the full-text index's rows for a match by BM25, best first, at most a limit. SQLite
// sorts them (a sorter keeping the limit best), not FTS5: ORDER BY rank has FTS5 prepare a statement of
// its own for every search and sort every matching row, which cost about a third of a search. The rows
// and their order are the same, ties by rowid (TestRankedQueryOrdersAsFTS5Rank).
const rankedQuery = `SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?`

// searchText returns the k best searchable chunks among the limit best rows of the full-text index for
// match, and how many rows the index gave. The rows are read in rank order, k at a time, until k are
// found: only the chunks filtered out (pending, staged) cost a second read.
func (s *Store) searchText(ctx context.Context, match string, k, limit int) ([]graphrag.ScoredChunk, int, error) {
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	rows, err := s.readStmts.query(ctx, tx, rankedQuery, match, limit)
	if err != nil {
		return nil, 0, err
	}
	type ranked struct {
		seq  int64
		bm25 float64
	}
	var top []ranked
	for rows.Next() {
		var r ranked
		if err := rows.Scan(&r.seq, &r.bm25); err != nil {
			rows.Close()
			return nil, 0, err
		}
		top = append(top, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	out := make([]graphrag.ScoredChunk, 0, min(k, len(top)))
	for next := 0; next < len(top) && len(out) < k; {
		part := top[next:min(len(top), next+k-len(out))]
		next += len(part)
		seqs := make([]int64, len(part))
		for i, r := range part {
			seqs[i] = r.seq
		}
		found, err := s.searchableChunks(ctx, tx, seqs)
		if err != nil {
			return nil, 0, err
		}
		for _, r := range part {
			if c, ok := found[r.seq]; ok {
				out = append(out, graphrag.ScoredChunk{Chunk: c, Score: -r.bm25, Rank: len(out) + 1})
			}
		}
	}
	return out, len(top), nil
}

const searchableChunksQuery = `SELECT c.id, c.doc_id, c.ordinal, c.section, c.text, c.tokens, c.status,
	c.error, d.name, d.title, c.page, c.seq FROM chunks c JOIN documents d ON d.id = c.doc_id
	WHERE c.status <> 'pending' AND d.replaces = '' AND c.seq IN `

// searchableChunks reads the chunks of these seqs that search may return (neither pending nor staged).
func (s *Store) searchableChunks(ctx context.Context, tx *sql.Tx, seqs []int64) (map[int64]graphrag.Chunk, error) {
	query, args := seqList(searchableChunksQuery, seqs)
	rows, err := s.readStmts.query(ctx, tx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[int64]graphrag.Chunk, len(seqs))
	for rows.Next() {
		var seq int64
		c, err := scanChunk(rows, &seq)
		if err != nil {
			return nil, err
		}
		found[seq] = c
	}
	return found, rows.Err()
}

// pruneFrom is the number of chunks from which dropCommon looks at the terms; below it, scoring every
// match is cheap.
const pruneFrom = 1000

// postingsBudget bounds the rows one full-text search scores, summed over its words: past it, the more
// common words are left out (see dropCommon). FTS5 scores a row in about 2 µs on this machine's cores,
// so the budget keeps a search near 10 ms at any size. A variable for tests.
var postingsBudget = 4096

// dropCommon leaves out, as long as another term that matches remains, the single words found in none of
// the chunks, those found in more than half of them, and then the most common words past postingsBudget:
// FTS5 scores every row that holds any word of the query, so a search costs the posting lists of its
// words, and those of common words are long. BM25 gives a word held by most chunks almost no weight (its
// IDF is clamped near zero) and a common word little, so the chunks that hold the rarer terms keep their
// order; chunks that match only the common words, ranked as noise, are no longer listed. Phrases
// (identifiers) and the rarest word that matches are always kept; the kept terms stay in the query's order.
func (s *Store) dropCommon(ctx context.Context, terms []ftsTerm) ([]ftsTerm, error) {
	if len(terms) < 2 {
		return terms, nil
	}
	tx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	total, err := ftsRows(ctx, &s.readStmts, tx)
	if err != nil {
		return nil, err
	}
	if total < pruneFrom {
		return terms, nil
	}
	// df is the number of chunks holding word: exactly when limit is 0, else up to limit, where
	// atLeast says it stopped (see termCapQuery).
	df := func(word string, limit int) (docs int, atLeast bool, err error) {
		if docs, atLeast, ok := s.termDocs.get(word, total); ok && (!atLeast || limit > 0 && docs >= limit) {
			return docs, atLeast, nil
		}
		query, args := termDocsQuery, []any{word}
		if limit > 0 {
			query, args = termCapQuery, []any{ftsTerm{text: word}.quoted(), limit}
		}
		err = s.readStmts.queryRow(ctx, tx, query, args...).Scan(&docs)
		if errors.Is(err, sql.ErrNoRows) {
			err = nil
		}
		if err != nil {
			return 0, false, err
		}
		atLeast = limit > 0 && docs >= limit
		s.termDocs.put(word, docs, total, atLeast)
		return docs, atLeast, nil
	}
	keep := make([]bool, len(terms))
	docs := make([]int, len(terms))
	capped := make([]bool, len(terms))
	matching, spent := false, 0
	for i, t := range terms {
		if t.phrase {
			// A phrase can match only where each of its words is found; it costs all their lists.
			found := true
			for _, part := range strings.Fields(t.text) {
				n, _, err := df(part, 0)
				if err != nil {
					return nil, err
				}
				found, spent = found && n > 0, spent+n
			}
			keep[i], matching = true, matching || found
			continue
		}
		if docs[i], capped[i], err = df(t.text, termCap()); err != nil {
			return nil, err
		}
	}
	eligible := func() []int {
		var words []int // single words that may be kept, by index
		for i, t := range terms {
			if !t.phrase && docs[i] > 0 && 2*docs[i] <= total {
				words = append(words, i)
			}
		}
		slices.SortStableFunc(words, func(a, b int) int { return docs[a] - docs[b] })
		return words
	}
	// A word past the cap is past the budget: it can be kept only as the rarest. While the rarest is one
	// of them, they are counted again to four times the cap, until the rarest is counted whole or they
	// are known to be in more than half of the chunks (a capped count stands for at least the cap, so it
	// sorts after every whole one).
	words := eligible()
	for limit := termCap(); len(words) > 0 && capped[words[0]]; {
		limit *= 4
		for i := range terms {
			if capped[i] {
				if docs[i], capped[i], err = df(terms[i].text, limit); err != nil {
					return nil, err
				}
			}
		}
		words = eligible()
	}
	for n, i := range words {
		if n > 0 && spent+docs[i] > postingsBudget {
			break
		}
		keep[i], matching, spent = true, true, spent+docs[i]
	}
	if !matching {
		return terms, nil
	}
	kept := make([]ftsTerm, 0, len(terms))
	for i, t := range terms {
		if keep[i] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

const ftsRowsQuery = `SELECT block FROM chunks_fts_data WHERE id = 1`

// ftsRows is the number of rows of the chunk full-text index: the first varint of FTS5's averages record
// (rowid 1 of its data table), read without counting the chunks; count(*) when that record cannot be read.
func ftsRows(ctx context.Context, stmts *readerStmts, tx *sql.Tx) (int, error) {
	var block []byte
	err := stmts.queryRow(ctx, tx, ftsRowsQuery).Scan(&block)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err == nil {
		if n, ok := sqliteVarint(block); ok {
			return int(n), nil
		}
	}
	var total int
	err = tx.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&total)
	return total, err
}

// sqliteVarint decodes SQLite's variable-length integer at the start of b: up to eight bytes of seven bits
// each, high bit set while more follow, then a ninth of eight bits.
func sqliteVarint(b []byte) (uint64, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), true
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// termCounts caches the number of chunks each word is found in: fts5vocab counts them by reading the
// word's whole posting list, which for a common word costs what scoring it would. A count is used while
// the index holds within 1/64 of the rows it held when counted; the cache is emptied at maxCachedTerms.
// A count marked atLeast stopped at termCap.
type termCounts struct {
	mu    sync.Mutex
	terms map[string]termCount
}

type termCount struct {
	docs, total int
	atLeast     bool
}

const maxCachedTerms = 1 << 14

func (c *termCounts) get(word string, total int) (docs int, atLeast, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tc, ok := c.terms[word]
	if !ok || abs(total-tc.total) > tc.total/64 {
		return 0, false, false
	}
	return tc.docs, tc.atLeast, true
}

func (c *termCounts) put(word string, docs, total int, atLeast bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terms == nil || len(c.terms) >= maxCachedTerms {
		c.terms = map[string]termCount{}
	}
	c.terms[word] = termCount{docs, total, atLeast}
}

const termDocsQuery = `SELECT doc FROM chunks_vocab WHERE term = ?`

// termCapQuery counts the chunks holding a word up to a cap: FTS5 stops reading the word's posting list
// there, where fts5vocab reads it whole (a word every chunk holds cost a pass over every chunk).
const termCapQuery = `SELECT count(*) FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?)`

// termCap is where dropCommon first stops counting a word: one past postingsBudget, which such a word
// cannot be kept within unless it is the rarest.
func termCap() int { return postingsBudget + 1 }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
