package graphrag

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// A store write that meets a transient error (a deadlock or lock timeout the store gave up on, a lost
// connection, a leader switch, a write that ran out of its own time) may succeed when made again. The
// ingester makes each write of a job again, a few times with a growing wait, before the document fails:
// one slow moment of the store does not fail a whole document. Every write it makes again is idempotent
// (each store's documentation says so of PutChunks, SetEmbeddings, PutExtraction, MarkChunkFailed,
// SetDocumentStatus, ReuseChunks and ReplaceDocument), so a write that was committed although its answer
// was lost changes nothing when made again.

// IsTransient reports whether a store error may go away when the same write is made again: the store out
// of reach (ErrUnavailable: a reset connection, a server restarting), a failure of the moment the store
// says is one (ErrTransient), or a write that ran out of its own time (context.DeadlineExceeded; the
// caller checks that its own context has not ended).
func IsTransient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrTransient) || errors.Is(err, context.DeadlineExceeded)
}

// WriteRetry bounds the tries of one store write of an ingestion job that meets a transient error.
type WriteRetry struct {
	Attempts int           // tries of one write, the first included (default 5)
	Within   time.Duration // no try starts later than this after the first (default 2 minutes)
	Backoff  time.Duration // the first wait, doubled after each try up to MaxWait (default 250 ms)
	MaxWait  time.Duration // the longest wait between tries (default 10 s)
}

func (r WriteRetry) withDefaults() WriteRetry {
	if r.Attempts <= 0 {
		r.Attempts = 5
	}
	if r.Within <= 0 {
		r.Within = 2 * time.Minute
	}
	if r.Backoff <= 0 {
		r.Backoff = 250 * time.Millisecond
	}
	if r.MaxWait <= 0 {
		r.MaxWait = 10 * time.Second
	}
	return r
}

// storeWrite makes write (named what, for document doc) and makes it again after a transient error, up to
// the job's WriteRetry, each wait logged. The error of a write that kept failing says how often and how
// long it was tried; any other error, and a job whose context ended, return at once.
func (in *Ingester) storeWrite(ctx context.Context, what, doc string, write func(context.Context) error) error {
	r := in.opt.WriteRetry
	start := time.Now()
	wait := r.Backoff
	for attempt := 1; ; attempt++ {
		err := write(ctx)
		if err == nil {
			if attempt > 1 {
				in.logger.Info("ingest: store write succeeded when made again", "write", what, "doc", doc, "attempt", attempt)
			}
			return nil
		}
		if ctx.Err() != nil || !IsTransient(err) {
			return err
		}
		// A wait of 75% to 125% of the nominal one, so that jobs failing together do not retry together.
		pause := wait*3/4 + rand.N(wait/2+1)
		if attempt >= r.Attempts || time.Since(start)+pause > r.Within {
			return fmt.Errorf("%w (a transient store error, tried %d times in %s: the store kept failing)",
				err, attempt, time.Since(start).Round(time.Millisecond))
		}
		in.logger.Warn("ingest: store write failed with a transient error; making it again",
			"write", what, "doc", doc, "attempt", attempt, "wait", pause.Round(time.Millisecond), "err", err)
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, r.MaxWait)
	}
}
