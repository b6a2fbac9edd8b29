package sqlite

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

// TestSearchTextDropsCommonWords checks, on a store large enough to prune, that words most chunks hold
// stop costing a pass over them without changing what a rarer word finds.
func TestSearchTextDropsCommonWords(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 2)
	ctx := t.Context()
	src := []byte("Expense handbook")
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: "handbook.md"}
	if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
		t.Fatal(err)
	}
	chunks := make([]graphrag.Chunk, pruneFrom)
	vectors := map[string][]float32{}
	var rare []string
	for i := range chunks {
		text := fmt.Sprintf("Expense handbook. Part %d: receipts and forms.", i)
		if i%100 == 3 {
			text += " Per diem for Zanzibar."
			rare = append(rare, graphrag.ChunkID(doc.ID, i))
		}
		chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, i), Ordinal: i, Text: text}
		vectors[chunks[i].ID] = []float32{1, float32(i)}
	}
	if err := s.PutChunks(ctx, doc.ID, chunks); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbeddings(ctx, vectors); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		query    string
		wantTerm []string
		wantIDs  []string // nil: only the count is checked
		wantN    int
	}{
		{"common title words dropped", "expense handbook zanzibar", []string{"zanzibar"}, rare, len(rare)},
		{"a phrase is kept", "expense handbook per-diem", []string{"per diem"}, rare, len(rare)},
		{"common word alone is kept", "handbook", []string{"handbook"}, nil, 20},
		{"nothing rarer matches: all kept", "handbook atlantis", []string{"handbook", "atlantis"}, nil, 20},
		{"a phrase that cannot match keeps all", "handbook TRV-117", []string{"handbook", "trv 117"}, nil, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			terms, err := s.dropCommon(ctx, ftsTerms(tc.query))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, term := range terms {
				got = append(got, term.text)
			}
			if !slices.Equal(got, tc.wantTerm) {
				t.Errorf("dropCommon(%q) = %q, want %q", tc.query, got, tc.wantTerm)
			}
			res, err := s.SearchText(ctx, tc.query, 20)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != tc.wantN {
				t.Errorf("SearchText(%q) = %d results, want %d", tc.query, len(res), tc.wantN)
			}
			if tc.wantIDs != nil {
				var ids []string
				for _, r := range res {
					ids = append(ids, r.ID)
				}
				slices.Sort(ids)
				if !slices.Equal(ids, tc.wantIDs) {
					t.Errorf("SearchText(%q) = %v, want %v", tc.query, ids, tc.wantIDs)
				}
			}
		})
	}
}

// TestSearchTextBoundsItsPostings: past postingsBudget rows summed over a query's words, the most common
// words are left out, the rarest kept; what the search finds first still holds the rare words.
func TestSearchTextBoundsItsPostings(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 2)
	ctx := t.Context()
	const n = countsChunks
	putCounts(t, s)
	saved := postingsBudget
	postingsBudget = 500
	t.Cleanup(func() { postingsBudget = saved })
	tests := []struct {
		query string
		want  []string
	}{
		{"alpha beta gamma delta", []string{"gamma", "delta"}}, // alpha: most chunks; beta: past the budget
		{"beta alpha", []string{"beta"}},                       // the rarest word is kept past the budget
		{"delta beta TRV-1", []string{"delta", "trv 1"}},       // a phrase is kept
	}
	for _, tc := range tests {
		if got := keptTerms(t, s, tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("dropCommon(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
	res, err := s.SearchText(ctx, "alpha beta gamma delta", 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 20 {
		t.Fatalf("SearchText found %d, want 20", len(res))
	}
	for i, c := range res[:n/100] {
		if !strings.Contains(c.Text, "delta") || !strings.Contains(c.Text, "gamma") {
			t.Errorf("result %d is %q: the first %d should hold both rare words", i+1, c.Text, n/100)
		}
	}
}

// TestSearchTextCountsPastTheCap: words are counted only up to one past postingsBudget, and those that
// reach it counted again, further, only when the rarest word is one of them; the terms kept are those
// whole counts keep, a second search (the counts cached) keeps the same, and the words never counted whole
// are only those that could not be kept.
func TestSearchTextCountsPastTheCap(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 2)
	const n = countsChunks
	putCounts(t, s)
	saved := postingsBudget
	postingsBudget = 50 // counts stop at 51: gamma and beta reach it, delta does not
	t.Cleanup(func() { postingsBudget = saved })
	tests := []struct {
		query string
		want  []string
	}{
		{"gamma beta alpha", []string{"gamma"}}, // the rarest of the capped words, counted further
		{"beta gamma delta", []string{"delta"}}, // delta is under the cap: the capped ones stay capped
		{"alpha beta", []string{"beta"}},        // alpha is in every chunk: beta, counted whole, is kept
		{"delta TRV-1 gamma", []string{"delta", "trv 1"}},
	}
	for round := range 2 {
		for _, tc := range tests {
			if got := keptTerms(t, s, tc.query); !slices.Equal(got, tc.want) {
				t.Errorf("round %d: dropCommon(%q) = %q, want %q", round+1, tc.query, got, tc.want)
			}
		}
	}
	for word, whole := range map[string]int{"gamma": 200, "beta": 800, "delta": 20} {
		docs, atLeast, ok := s.termDocs.get(word, n)
		if !ok || atLeast || docs != whole {
			t.Errorf("count of %q = %d (at least: %v, cached: %v), want %d counted whole", word, docs, atLeast, ok, whole)
		}
	}
	if docs, atLeast, ok := s.termDocs.get("alpha", n); !ok || !atLeast || docs >= n {
		t.Errorf("count of alpha = %d (at least: %v, cached: %v): want it stopped under %d", docs, atLeast, ok, n)
	}
}

// countsChunks is the number of chunks putCounts writes.
const countsChunks = 2000

// putCounts writes countsChunks chunks holding alpha (all), beta (40%), gamma (10%) and delta (1%), each
// with a word of its own.
func putCounts(t *testing.T, s *Store) {
	t.Helper()
	texts := make([]string, countsChunks)
	for i := range texts {
		words := []string{"alpha", fmt.Sprintf("filler%d", i)}
		if i%5 < 2 {
			words = append(words, "beta")
		}
		if i%10 == 0 {
			words = append(words, "gamma")
		}
		if i%100 == 0 {
			words = append(words, "delta")
		}
		texts[i] = strings.Join(words, " ")
	}
	putTexts(t, s, "counts.md", texts, func(i int) []float32 { return []float32{1, float32(i)} })
}

// keptTerms is the text of the terms dropCommon keeps of query.
func keptTerms(t *testing.T, s *Store, query string) []string {
	t.Helper()
	terms, err := s.dropCommon(t.Context(), ftsTerms(query))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, term := range terms {
		got = append(got, term.text)
	}
	return got
}

// TestSeqList: lists of seqs are padded to a few lengths with their last seq, so their statements are
// compiled once; a longer list is given whole.
func TestSeqList(t *testing.T) {
	for _, tc := range []struct{ n, want int }{{1, 8}, {8, 8}, {9, 16}, {30, 32}, {64, 64}, {65, 65}} {
		seqs := make([]int64, tc.n)
		for i := range seqs {
			seqs[i] = int64(i + 1)
		}
		query, args := seqList("SELECT 1 WHERE x IN ", seqs)
		if len(args) != tc.want || strings.Count(query, "?") != tc.want {
			t.Errorf("seqList of %d: %d args, %d placeholders; want %d", tc.n, len(args), strings.Count(query, "?"), tc.want)
		}
		if last := args[len(args)-1]; last != int64(tc.n) {
			t.Errorf("seqList of %d pads with %v, want %d", tc.n, last, tc.n)
		}
	}
	if query, args := seqList("x IN ", nil); query != "x IN (NULL)" || len(args) != 0 {
		t.Errorf("seqList of none = %q, %v", query, args)
	}
}

// TestSearchTextSkipsPendingPastTheLimit: the full-text index ranks pending chunks too; when more of them
// than the first limit rank above the searchable ones, the search asks for more and still finds k.
func TestSearchTextSkipsPendingPastTheLimit(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 2)
	ctx := t.Context()
	// Pending chunks say "zebra" twice in few words: BM25 ranks each above every searchable one.
	pending := make([]string, 200)
	for i := range pending {
		pending[i] = "zebra zebra"
	}
	putTexts(t, s, "pending.md", pending, nil)
	done := make([]string, 30)
	for i := range done {
		done[i] = fmt.Sprintf("a zebra among many other words, number %d", i)
	}
	putTexts(t, s, "done.md", done, func(int) []float32 { return []float32{1, 0} })
	res, err := s.SearchText(ctx, "zebra", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 10 {
		t.Fatalf("SearchText found %d, want 10", len(res))
	}
	for _, c := range res {
		if c.DocName != "done.md" {
			t.Errorf("found %s of %s, a pending chunk", c.ID, c.DocName)
		}
	}
}

func TestFTSRowsIsTheChunkCount(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 4)
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		fill(t, s, name)
	}
	ids := fill(t, s, "d.txt")
	if err := s.DeleteDocument(t.Context(), ids[0][:strings.LastIndex(ids[0], "-")]); err != nil {
		t.Fatal(err)
	}
	tx, err := s.reader.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	got, err := ftsRows(t.Context(), &s.readStmts, tx)
	if err != nil || got != 6 {
		t.Errorf("ftsRows = %d, %v; want 6", got, err)
	}
	for _, tc := range []struct {
		b    []byte
		want uint64
	}{{[]byte{0x05}, 5}, {[]byte{0x81, 0x00}, 128}, {[]byte{0x8f, 0xff, 0x7f}, 0x3ffff}} {
		if v, ok := sqliteVarint(tc.b); !ok || v != tc.want {
			t.Errorf("sqliteVarint(% x) = %d, %v; want %d", tc.b, v, ok, tc.want)
		}
	}
}

// TestRankedQueryOrdersAsFTS5Rank checks that rankedQuery (SQLite sorting by bm25) gives the rows, scores
// and order FTS5's own ORDER BY rank gives, ties included (many chunks here score alike: same words, same
// length), at limits that cut through the ties, and after deletes.
func TestRankedQueryOrdersAsFTS5Rank(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), "hopwise.db"), 2)
	ctx := t.Context()
	r := rand.New(rand.NewPCG(7, 9))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	src := []byte("ranking corpus")
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: "ranking.md"}
	if _, _, err := s.PutDocument(ctx, doc, src); err != nil {
		t.Fatal(err)
	}
	chunks := make([]graphrag.Chunk, 600)
	for i := range chunks {
		n := 6 + r.IntN(3)
		text := make([]string, n)
		for j := range text {
			text[j] = words[min(r.IntN(len(words)), r.IntN(len(words)))] // skewed: early words commoner
		}
		chunks[i] = graphrag.Chunk{ID: graphrag.ChunkID(doc.ID, i), Ordinal: i, Text: strings.Join(text, " ")}
	}
	if err := s.PutChunks(ctx, doc.ID, chunks); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writer.ExecContext(ctx, `DELETE FROM chunks WHERE seq % 7 = 3`); err != nil {
		t.Fatal(err)
	}
	list := func(query, match string, limit int) []string {
		rows, err := s.reader.QueryContext(ctx, query, match, limit)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var seq int64
			var score float64
			if err := rows.Scan(&seq, &score); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%d:%v", seq, score))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	ties := 0
	for _, match := range []string{`"alpha"`, `"kappa"`, `"mu" OR "lambda"`, `"alpha" OR "beta" OR "mu"`,
		`"gamma" OR "iota" OR "eta" OR "zeta"`, `"beta" AND "delta"`} {
		for _, limit := range []int{1, 5, 17, 36, 100, 1000} {
			want := list(`SELECT rowid, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?`, match, limit)
			got := list(rankedQuery, match, limit)
			if !slices.Equal(got, want) {
				t.Errorf("%s, limit %d:\n got %v\nwant %v", match, limit, got, want)
			}
			for i := 1; i < len(want); i++ {
				if strings.SplitN(want[i], ":", 2)[1] == strings.SplitN(want[i-1], ":", 2)[1] {
					ties++
				}
			}
		}
	}
	if ties < 100 {
		t.Errorf("only %d tied scores: the corpus no longer tests the order of ties", ties)
	}
}
