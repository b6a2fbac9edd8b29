package graphrag

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultJobLease is how long a process's hold on a document's job lasts unless renewed (every third of
// it): a process that dies mid-job has the job taken over by another sharing the store this long after.
const DefaultJobLease = 15 * time.Second

// jobLeasePrefix begins the name of every document job's lease.
const jobLeasePrefix = "ingest:"

// maxSweep bounds the ran-out leases one scan removes.
const maxSweep = 1000

// JobLease names the lease on a document's ingestion job.
func JobLease(docID string) string { return jobLeasePrefix + docID }

// holdJob takes the lease on document id's job for this Ingester and renews it every third of the lease
// until release is called. When another process took it meanwhile (this one could not renew it within the
// lease: the store was slow or out of reach), stop is called: the job ends here and goes on there. ok is false when another process holds the job; a lease of a process of
// this machine that was killed (HolderGone) is taken over at once.
func (in *Ingester) holdJob(ctx context.Context, id string, stop context.CancelFunc) (release func(), ok bool, err error) {
	l, ok, err := in.store.TakeLease(ctx, JobLease(id), in.holder, in.opt.Lease)
	if err == nil && !ok && HolderGone(l.Holder) {
		in.logger.Info("ingest: the process that held this job is gone; taking it over", "doc", id, "holder", l.Holder)
		if err = in.store.ReleaseLease(ctx, JobLease(id), l.Holder); err == nil {
			_, ok, err = in.store.TakeLease(ctx, JobLease(id), in.holder, in.opt.Lease)
		}
	}
	if err != nil || !ok {
		return nil, false, err
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(in.opt.Lease / 3)
		defer tick.Stop()
		renewed, warned := time.Now(), false
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			// A renewal waits for the store's writer, busy with the job's own writes, at most a third of the
			// lease. One that fails leaves the job going: the store is slow or out of reach, and the job's
			// own writes fail if it is gone. Only a lease another process took meanwhile ends it here.
			rctx, cancel := context.WithTimeout(ctx, in.opt.Lease/3)
			_, ok, err := in.store.TakeLease(rctx, JobLease(id), in.holder, in.opt.Lease)
			cancel()
			switch {
			case err == nil && ok:
				renewed, warned = time.Now(), false
			case err == nil:
				in.logger.Warn("ingest: another process took the job over; it resumes it there", "doc", id)
				stop()
				return
			case time.Since(renewed) >= in.opt.Lease && !warned && ctx.Err() == nil:
				warned = true
				in.logger.Warn("ingest: the job's hold could not be renewed within its lease; another process may take it over",
					"doc", id, "err", err)
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), in.opt.Lease)
		defer cancel()
		if err := in.store.ReleaseLease(rctx, JobLease(id), in.holder); err != nil {
			in.logger.Warn("ingest: release the job's hold", "doc", id, "err", err)
		}
	}, true, nil
}

// scan queues every unfinished document whose job no process holds: the jobs of a process that died, and
// those uploaded through another that has not started them yet. Jobs this Ingester has queued or runs are
// left as they are.
func (in *Ingester) scan(ctx context.Context) error {
	docs, err := in.store.Documents(ctx)
	if err != nil {
		return fmt.Errorf("graphrag: list unfinished jobs: %w", err)
	}
	for _, d := range docs {
		if d.Status.Finished() {
			continue
		}
		in.mu.Lock()
		mine := in.queued[d.ID] || in.running[d.ID] != nil
		in.mu.Unlock()
		if mine {
			continue
		}
		l, err := in.store.Lease(ctx, JobLease(d.ID))
		if err != nil {
			return fmt.Errorf("graphrag: read the hold on %s: %w", d.ID, err)
		}
		if !l.Held || HolderGone(l.Holder) {
			in.logger.Info("taking over ingest", "doc", d.ID, "name", d.Name, "status", d.Status)
			in.enqueue(d.ID)
		}
	}
	return nil
}

// leaseSweeper is a store that removes leases whose time ran out (both stores: SweepLeases removes those
// whose names start with prefix, at most limit, and returns how many).
type leaseSweeper interface {
	SweepLeases(ctx context.Context, prefix string, limit int) (int, error)
}

// sweep removes the job leases whose time ran out: those of processes that died holding a job nobody took
// over since (its document was deleted or finished by a job of its own) or that could not release theirs.
// Such a lease reads as none, so removing it changes no decision; without it they stayed forever.
func (in *Ingester) sweep(ctx context.Context) error {
	sw, ok := in.store.(leaseSweeper)
	if !ok {
		return nil
	}
	n, err := sw.SweepLeases(ctx, jobLeasePrefix, maxSweep)
	if err != nil {
		return fmt.Errorf("graphrag: remove job leases that ran out: %w", err)
	}
	if n > 0 {
		in.logger.Debug("ingest: removed job leases that ran out", "leases", n)
	}
	return nil
}

// scanEvery runs scan and sweep every half lease until ctx ends: a job whose process died resumes within
// one and a half leases.
func (in *Ingester) scanEvery(ctx context.Context) {
	tick := time.NewTicker(in.opt.Lease / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := in.scan(ctx); err != nil && ctx.Err() == nil {
			in.logger.Warn("ingest: look for jobs to take over", "err", err)
		}
		if err := in.sweep(ctx); err != nil && ctx.Err() == nil {
			in.logger.Warn("ingest: clean up leases", "err", err)
		}
	}
}
