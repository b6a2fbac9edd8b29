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

// RunLease names the lease of the process answering turn id (agent.Chat holds it while the run goes on):
// PruneRuns keeps a run's events while it is held and for the retention after it ran out.
func RunLease(id string) string { return "turn:" + id }

// RunRetention is how long the events of a run whose process died are kept after its lease ran out, for
// the turn to be shown interrupted as far as they got (agent.Chat.Settle), and how long any lease that ran
// out is kept; then PruneRuns removes them.
const RunRetention = 7 * 24 * time.Hour

// MaxPruned bounds the events, and the leases, one PruneRuns removes; the next removes the rest.
const MaxPruned = 50000

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
	// PruneRuns removes what ended or abandoned work left behind: the events of every run whose lease
	// (RunLease) is neither held nor ran out after before (runs that ended, whose turns hold what the
	// events said, and runs whose process died before before), then every lease that ran out before
	// before; at most MaxPruned of each. It returns how many events and leases it removed.
	PruneRuns(ctx context.Context, before time.Time) (events, leases int, err error)
}
