package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// Group commit. An ingest stores each passage's extraction in a transaction of its own, several at once
// (workers × extraction concurrency), and each commit writes every page it touched to the log again: the
// entity and relation tables' and indexes' pages, shared by all of them. batchWrite lets the writes that
// arrive while one commits share the next transaction instead: the first caller to find no batch under
// way runs the batch of everything queued, each write inside a savepoint of its own, so that one write's
// failure rolls back only its own changes and is reported only to its caller; the others commit together.

// maxBatch bounds the writes of one group transaction.
const maxBatch = 64

type batchedWrite struct {
	ctx context.Context
	fn  func(tx *sql.Tx) error
	err error
	// wake tells a queued write that it leads the next batch (true) or that its batch ran (false).
	wake chan bool
}

// writeBatcher queues the writes waiting for the batch under way.
type writeBatcher struct {
	mu      sync.Mutex
	queue   []*batchedWrite
	running bool
}

// batchWrite runs fn in a write transaction, possibly shared with other batchWrite calls, and returns fn's
// error or the transaction's. fn must only touch the transaction (it runs again when the transaction is
// tried again) and use its own ctx for its statements. The caller that leads a batch runs it, then hands
// the lead to the first write queued meanwhile, so that no caller runs more than its own batch.
func (s *Store) batchWrite(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	b := &s.batch
	w := &batchedWrite{ctx: ctx, fn: fn, wake: make(chan bool, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, w)
	if !b.running {
		b.running = true
		w.wake <- true
	}
	b.mu.Unlock()
	if lead := <-w.wake; !lead {
		return w.err
	}
	b.mu.Lock()
	batch := b.queue[:min(len(b.queue), maxBatch)] // w first: only the leader takes from the queue
	b.queue = b.queue[len(batch):]
	b.mu.Unlock()
	s.runBatch(ctx, op, batch)
	for _, bw := range batch[1:] {
		bw.wake <- false
	}
	b.mu.Lock()
	if len(b.queue) > 0 {
		b.queue[0].wake <- true
	} else {
		b.running = false
	}
	b.mu.Unlock()
	return w.err
}

// runBatch commits the writes of batch in one transaction, each in a savepoint; a write that fails is
// rolled back to its savepoint alone. When the transaction fails, every write gets its error.
func (s *Store) runBatch(ctx context.Context, op string, batch []*batchedWrite) {
	if len(batch) == 1 {
		batch[0].err = s.write(batch[0].ctx, op, batch[0].fn)
		return
	}
	// The batch outlives any one caller's cancellation: each write's own statements use its ctx.
	bctx := context.WithoutCancel(ctx)
	err := s.write(bctx, op, func(tx *sql.Tx) error {
		for _, w := range batch {
			if _, err := tx.ExecContext(bctx, `SAVEPOINT batched`); err != nil {
				return err
			}
			if w.err = w.fn(tx); w.err != nil {
				if _, err := tx.ExecContext(bctx, `ROLLBACK TO batched`); err != nil {
					return fmt.Errorf("roll back a failed write of the batch: %w", err)
				}
			}
			if _, err := tx.ExecContext(bctx, `RELEASE batched`); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, w := range batch {
			w.err = err
		}
	}
}
