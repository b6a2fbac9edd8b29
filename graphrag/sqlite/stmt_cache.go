package sqlite

import (
	"context"
	"database/sql"
	"maps"
	"sync"
	"sync/atomic"
)

// Prepared statements of the writer. SQLite compiles a statement before it runs it, and database/sql keeps
// nothing it compiled: a write that runs the same few statements for each entity and relation of a passage
// paid that compilation every time. A transaction's helpers run their statements with execTx and
// queryRowTx; when ctx carries the store's statements (withPrepared), the ones compiled before run through
// the transaction compiled (sql.Tx.StmtContext reuses the writer connection's), and the others are
// noted and compiled after the transaction (prepareNoted): a statement cannot be compiled on the writer's
// one connection while a transaction holds it.
type preparedStmts struct {
	db    *sql.DB
	ready atomic.Pointer[map[string]*sql.Stmt]
	mu    sync.Mutex
	noted map[string]bool
}

type preparedKey struct{}

// maxPrepared bounds the statements kept compiled; the write paths run a few dozen.
const maxPrepared = 128

func newPreparedStmts(db *sql.DB) *preparedStmts {
	p := &preparedStmts{db: db, noted: map[string]bool{}}
	p.ready.Store(&map[string]*sql.Stmt{})
	return p
}

// withPrepared is ctx carrying p, for the helpers of a write transaction.
func withPrepared(ctx context.Context, p *preparedStmts) context.Context {
	return context.WithValue(ctx, preparedKey{}, p)
}

// stmt is the statement for query compiled on the writer, bound to tx; nil when it is not compiled yet
// (it is noted) or ctx carries no statements.
func stmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	p, _ := ctx.Value(preparedKey{}).(*preparedStmts)
	if p == nil {
		return nil
	}
	if st := (*p.ready.Load())[query]; st != nil {
		return tx.StmtContext(ctx, st)
	}
	p.mu.Lock()
	if len(p.noted) < maxPrepared {
		p.noted[query] = true
	}
	p.mu.Unlock()
	return nil
}

// execTx runs query in tx, compiled when it was before.
func execTx(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := stmt(ctx, tx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// queryRowTx runs query for one row in tx, compiled when it was before.
func queryRowTx(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if st := stmt(ctx, tx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, query, args...)
}

// prepareNoted compiles the statements noted since, outside any transaction and without holding the
// lock the transactions' helpers take (compiling waits for the writer's connection); one that fails to
// compile keeps running uncompiled.
func (p *preparedStmts) prepareNoted(ctx context.Context) {
	p.mu.Lock()
	var todo []string
	for q := range p.noted {
		if _, ok := (*p.ready.Load())[q]; !ok {
			todo = append(todo, q)
		}
	}
	clear(p.noted)
	p.mu.Unlock()
	if len(todo) == 0 {
		return
	}
	compiled := map[string]*sql.Stmt{}
	for _, q := range todo {
		if st, err := p.db.PrepareContext(ctx, q); err == nil {
			compiled[q] = st
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ready := maps.Clone(*p.ready.Load())
	for q, st := range compiled {
		if _, ok := ready[q]; ok || len(ready) >= maxPrepared {
			st.Close()
			continue
		}
		ready[q] = st
	}
	p.ready.Store(&ready)
}

// close closes the compiled statements.
func (p *preparedStmts) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range *p.ready.Load() {
		st.Close()
	}
	p.ready.Store(&map[string]*sql.Stmt{})
}
