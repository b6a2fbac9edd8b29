package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// readerStmts are the statements of the search paths and of the graph reads of a retrieval pass
// (graphReadQueries) compiled once on the reader pool, at Open: database/sql keeps nothing it compiled, and
// compiling a search's few statements (a full-text query, a count, the chunks of a list of seqs) cost
// about a tenth of it. They are compiled at Open, before any search holds a
// connection, so that compiling never waits for a connection a search holds; a statement not among them
// runs uncompiled, as before. Inside a transaction a statement is bound to its connection
// (sql.Tx.StmtContext), which compiles it there once.
type readerStmts struct {
	mu    sync.RWMutex
	stmts map[string]*sql.Stmt
}

// seqListSizes are the lengths the lists of seqs of seqList are padded to; longer lists run uncompiled.
var seqListSizes = []int{8, 16, 32, 64}

// prepare compiles the search statements on db; one that does not compile (a file forced open without its
// schema) is left out.
func (r *readerStmts) prepare(ctx context.Context, db *sql.DB) {
	queries := append([]string{rankedQuery, termCapQuery, termDocsQuery, ftsRowsQuery}, graphReadQueries()...)
	for _, n := range seqListSizes {
		seqs := make([]int64, n)
		for _, prefix := range []string{searchableChunksQuery, chunksBySeqQuery} {
			q, _ := seqList(prefix, seqs)
			queries = append(queries, q)
		}
	}
	stmts := make(map[string]*sql.Stmt, len(queries))
	for _, q := range queries {
		if st, err := db.PrepareContext(ctx, q); err == nil {
			stmts[q] = st
		}
	}
	r.mu.Lock()
	r.stmts = stmts
	r.mu.Unlock()
}

// close closes the compiled statements; later searches run uncompiled.
func (r *readerStmts) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, st := range r.stmts {
		errs = append(errs, st.Close())
	}
	r.stmts = nil
	return errors.Join(errs...)
}

func (r *readerStmts) get(query string) *sql.Stmt {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.stmts[query]
}

// searchQueryer runs queries: the reader pool (*sql.DB) or one of its transactions (*sql.Tx).
type searchQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// query runs query in q (the reader pool or one of its transactions), compiled when it is among the
// search statements.
func (r *readerStmts) query(ctx context.Context, q searchQueryer, query string, args ...any) (*sql.Rows, error) {
	if st := r.get(query); st != nil {
		if tx, ok := q.(*sql.Tx); ok {
			return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
		}
		return st.QueryContext(ctx, args...)
	}
	return q.QueryContext(ctx, query, args...)
}

// queryRow is query for one row.
func (r *readerStmts) queryRow(ctx context.Context, q searchQueryer, query string, args ...any) *sql.Row {
	if st := r.get(query); st != nil {
		if tx, ok := q.(*sql.Tx); ok {
			return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
		}
		return st.QueryRowContext(ctx, args...)
	}
	return q.QueryRowContext(ctx, query, args...)
}

// seqList is prefix followed by a parenthesised list of placeholders for seqs, and its arguments: the
// list padded to the next of seqListSizes by repeating the last seq (a list that names a seq twice
// selects it once), so that the search statements are a few and compiled.
func seqList(prefix string, seqs []int64) (string, []any) {
	n := len(seqs)
	if n == 0 {
		return prefix + "(NULL)", nil
	}
	for _, size := range seqListSizes {
		if size >= n {
			n = size
			break
		}
	}
	args := make([]any, n)
	for i := range args {
		args[i] = seqs[min(i, len(seqs)-1)]
	}
	return prefix + "(" + placeholders(n) + ")", args
}
