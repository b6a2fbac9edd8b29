package graphrag

import (
	"context"
	"time"
)

// RunEvent is one event of an answer being written, as its run emitted it (JSON owned by the agent
// package), numbered from 1 in the order of the run.
type RunEvent struct {
	Seq  int
	Data []byte
}

// Lease is a named claim on work that one process holds for a while: an answer being written, a
// document's ingestion job. Holder names the process; Held reports whether its time is not up yet, by the
// store's clock. A lease never taken, or released, is the zero Lease.
type Lease struct {
	Name   string
	Holder string
	Until  time.Time
	Held   bool
}

// MaxRunEvents bounds the events RunEvents returns at once.
const MaxRunEvents = 1000

// RunStore is what the processes that share a store share of the work under way: the events of the
// answers being written, so that any of them can stream an answer (and a reloaded page continue it), and
// leases, so that a job is worked on by one process at a time and taken over when that process dies.
type RunStore interface {
	// AppendRunEvents stores events of the run id (a turn's ID) by their Seq; an event of a Seq already
	// stored is kept as it was, so a repeated call changes nothing.
	AppendRunEvents(ctx context.Context, id string, events []RunEvent) error
	// RunEvents returns the run's events of Seq above after, in order, at most limit (at most
	// MaxRunEvents); none for an unknown run.
	RunEvents(ctx context.Context, id string, after, limit int) ([]RunEvent, error)
	// DeleteRunEvents removes the run's events (its turn, stored whole, holds what they said).
	DeleteRunEvents(ctx context.Context, id string) error
	// TakeLease gives holder the lease name for ttl from now, by the store's clock, when nobody holds it,
	// its holder's time is up, or holder holds it already (a renewal). It returns the lease as it is after
	// the call and whether holder holds it; two processes taking a free lease at once never both get it.
	TakeLease(ctx context.Context, name, holder string, ttl time.Duration) (Lease, bool, error)
	// Lease reads the lease name as it is now.
	Lease(ctx context.Context, name string) (Lease, error)
	// ReleaseLease ends holder's lease name at once; a lease another holder took meanwhile stays.
	ReleaseLease(ctx context.Context, name, holder string) error
}
