package neo4j

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Neo4j's vector index is a Lucene index whose searcher is refreshed when a transaction changes it. A
// bulk of vector writes (an ingest, a re-embedding, deletes) leaves many small segments, which Lucene
// merges in the background after the last write: the searcher keeps the segments it had then, one HNSW
// graph each, until the index changes again or a checkpoint (every 15 minutes by default) refreshes it.
// Measured on the 10k chunk corpus right after its build: a vector search cost 4-7 ms against 1-1.7 ms
// once the searcher was refreshed (docs/benchmarks.md). So after the store's vector writes the index is
// touched a few times while the merges end (settleDelays), and once more at Close when a touch is still
// due; after Open too, for what another process wrote last. A touch is one chunk's vector taken out and
// put back as it was, in one transaction, which changes nothing but makes Neo4j refresh the searcher
// over the merged segments.

// settleDelays are the times after the last vector write (or Open) at which the index is touched.
var settleDelays = []time.Duration{2 * time.Second, 15 * time.Second, time.Minute, 5 * time.Minute}

// settleTimeout bounds one touch; closeTouchTimeout the one Close makes.
const (
	settleTimeout     = 10 * time.Second
	closeTouchTimeout = 2 * time.Second
)

// vectorSettle schedules the touches of a Store's vector index.
type vectorSettle struct {
	mu      sync.Mutex
	timer   *time.Timer
	step    int  // the next delay of settleDelays
	due     bool // a touch is due: vectors were written since the schedule's last
	closed  bool
	touches int            // touches made, for tests
	running sync.WaitGroup // the touch being made, which Close waits for
}

// vectorsWritten restarts the schedule of touches after a vector write; a touch is then due until the
// schedule ends, at Close too.
func (s *Store) vectorsWritten() { s.scheduleSettle(true) }

// scheduleSettle starts the schedule of touches from its first delay. Open starts it too, without a
// touch due at Close: another process (an ingest that exited as soon as it was done) may have left the
// searcher behind the merges.
func (s *Store) scheduleSettle(due bool) {
	v := &s.settle
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	v.due, v.step = v.due || due, 0
	if v.timer != nil {
		v.timer.Stop()
	}
	v.timer = time.AfterFunc(settleDelays[0], s.settleStep)
}

// settleStep makes the touch that is due and schedules the next.
func (s *Store) settleStep() {
	v := &s.settle
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.step++
	if v.step < len(settleDelays) {
		v.timer = time.AfterFunc(settleDelays[v.step]-settleDelays[v.step-1], s.settleStep)
	} else {
		v.due, v.timer = false, nil
	}
	v.running.Add(1)
	v.mu.Unlock()
	defer v.running.Done()
	s.touchVectorIndex(settleTimeout)
}

// closeSettle stops the schedule and makes one last touch when one is due and the server was reachable.
func (s *Store) closeSettle() {
	v := &s.settle
	v.mu.Lock()
	due := v.due && !v.closed
	v.closed = true
	if v.timer != nil {
		v.timer.Stop()
	}
	v.mu.Unlock()
	v.running.Wait()
	if due && !s.down.Load() {
		s.touchVectorIndex(closeTouchTimeout)
	}
}

// touchVectorIndex takes one chunk's vector of the searched slot out and puts it back as it was. It
// locks the chunk first, so that the vector put back is the last committed one, and writes only while
// the slot is still the recorded one (a re-embedding's commit may have dropped the other). A failure
// is logged: the next write, touch or checkpoint refreshes the index anyway.
func (s *Store) touchVectorIndex(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.spaceMu.RLock()
	defer s.spaceMu.RUnlock()
	prop := s.space.Load().property()
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		if err := s.checkSlot(ctx, tx); err != nil {
			return err
		}
		return exec(ctx, tx, `MATCH (c:Chunk) WHERE c.`+prop+` IS NOT NULL
			WITH c LIMIT 1
			SET c.settling = true REMOVE c.settling
			WITH c, c.`+prop+` AS v
			REMOVE c.`+prop+`
			WITH c, v
			CALL db.create.setNodeVectorProperty(c, $prop, v)`, map[string]any{"prop": prop})
	})
	if err != nil {
		s.logger.Debug("neo4j: refresh the vector index", "err", fmt.Errorf("neo4j: touch the vector index: %w", err))
		return
	}
	s.settle.mu.Lock()
	s.settle.touches++
	s.settle.mu.Unlock()
}
