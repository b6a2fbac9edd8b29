package graphrag

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ReindexLease names the lease (RunStore) a re-index holds in the store while it runs, so that two
// processes sharing the store (two `hopwise reindex --graph`, or the CLI beside the Status page's button
// of `hopwise serve`) never re-embed or re-extract it at once.
const ReindexLease = "reindex"

// DefaultReindexLease is how long a re-index's hold on the store lasts unless renewed (every third of
// it): a re-index whose process died elsewhere is taken over this long after; one of a process of this
// machine that was killed is taken over at once (HolderGone).
const DefaultReindexLease = 30 * time.Second

// ReindexHeldError: another process holds the store's re-index lease. It is ErrReindexRunning.
type ReindexHeldError struct {
	Holder string
	Until  time.Time
}

func (e *ReindexHeldError) Error() string {
	return fmt.Sprintf("a re-index is already running in another process (%s), which holds the store's re-index lease "+
		"until %s and renews it while it runs: wait until it has ended (the Status page shows its progress), "+
		"then run it again if there is more to do; a process that died without ending loses the lease by then",
		e.Holder, e.Until.UTC().Format(time.RFC3339))
}

// Is makes a ReindexHeldError ErrReindexRunning.
func (e *ReindexHeldError) Is(target error) bool { return target == ErrReindexRunning }

// errLeaseLost ends a re-index whose lease another process took over.
var errLeaseLost = errors.New("graphrag: re-index: another process took the re-index lease over after this one " +
	"could not renew it in time; what was staged is kept and the re-index goes on there")

// WithLease sets how long the re-index's hold on the store lasts unless renewed (DefaultReindexLease);
// it returns r.
func (r *Reindexer) WithLease(ttl time.Duration) *Reindexer {
	if ttl > 0 {
		r.leaseTTL = ttl
	}
	return r
}

// Holder names this Reindexer as the holder of the re-index lease.
func (r *Reindexer) Holder() string { return r.holder }

// holdLease takes the store's re-index lease for this Reindexer, or says who holds it
// (*ReindexHeldError). While held it is renewed; the returned context ends, with errLeaseLost as its
// cause, when another process took it over meanwhile, and release ends the hold.
func (r *Reindexer) holdLease(ctx context.Context) (held context.Context, release func(), err error) {
	l, ok, err := r.store.TakeLease(ctx, ReindexLease, r.holder, r.leaseTTL)
	if err == nil && !ok && HolderGone(l.Holder) {
		r.logger.Info("re-index: the process that held the re-index lease is gone; taking it over", "holder", l.Holder)
		if err = r.store.ReleaseLease(ctx, ReindexLease, l.Holder); err == nil {
			l, ok, err = r.store.TakeLease(ctx, ReindexLease, r.holder, r.leaseTTL)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("graphrag: re-index: take the re-index lease: %w", err)
	}
	if !ok {
		return nil, nil, &ReindexHeldError{Holder: l.Holder, Until: l.Until}
	}
	held, lost := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { r.renewLease(held, stop, lost) })
	return held, func() {
		close(stop)
		wg.Wait()
		lost(nil)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.leaseTTL)
		defer cancel()
		if err := r.store.ReleaseLease(rctx, ReindexLease, r.holder); err != nil {
			r.logger.Warn("re-index: release the re-index lease", "err", err)
		}
	}, nil
}

// renewLease renews the re-index lease every third of it until stop is closed or ctx ends; when another
// holder has it, it calls lost. A renewal that fails (the store slow or out of reach) leaves the re-index
// going: its own writes fail if the store is gone.
func (r *Reindexer) renewLease(ctx context.Context, stop <-chan struct{}, lost context.CancelCauseFunc) {
	every := time.NewTicker(r.leaseTTL / 3)
	defer every.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case <-every.C:
		}
		rctx, cancel := context.WithTimeout(ctx, r.leaseTTL/3)
		l, ok, err := r.store.TakeLease(rctx, ReindexLease, r.holder, r.leaseTTL)
		cancel()
		if err == nil && !ok {
			r.logger.Warn("re-index: another process took the re-index lease over; stopping here", "holder", l.Holder)
			lost(errLeaseLost)
			return
		}
		if err != nil && ctx.Err() == nil {
			r.logger.Warn("re-index: could not renew the re-index lease", "err", err)
		}
	}
}

// leaseElsewhere reads the re-index lease and returns it when another holder than this Reindexer holds
// it, the zero Lease otherwise.
func (r *Reindexer) leaseElsewhere(ctx context.Context) (Lease, error) {
	l, err := r.store.Lease(ctx, ReindexLease)
	if err != nil || !l.Held || l.Holder == r.holder {
		return Lease{}, err
	}
	return l, nil
}
