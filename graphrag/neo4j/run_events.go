package neo4j

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// AppendRunEvents stores a run's events as RunEvent nodes keyed by run and sequence number; one stored
// before keeps its data.
func (s *Store) AppendRunEvents(ctx context.Context, id string, events []graphrag.RunEvent) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([]map[string]any, len(events))
	for i, e := range events {
		rows[i] = map[string]any{"seq": e.Seq, "data": string(e.Data)}
	}
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `UNWIND $events AS e
			MERGE (x:RunEvent {runId: $run, seq: e.seq})
			ON CREATE SET x.data = e.data`, map[string]any{"run": id, "events": rows})
	})
	if err != nil {
		return fmt.Errorf("neo4j: append events of run %s: %w", id, err)
	}
	return nil
}

// RunEvents returns a run's events after the sequence number after, in order, at most limit.
func (s *Store) RunEvents(ctx context.Context, id string, after, limit int) ([]graphrag.RunEvent, error) {
	if limit <= 0 || limit > graphrag.MaxRunEvents {
		limit = graphrag.MaxRunEvents
	}
	var out []graphrag.RunEvent
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (x:RunEvent {runId: $run}) WHERE x.seq > $after
			RETURN x.seq, x.data ORDER BY x.seq LIMIT $limit`, map[string]any{"run": id, "after": after, "limit": limit})
		if err != nil {
			return err
		}
		out = make([]graphrag.RunEvent, 0, len(records))
		for _, r := range records {
			out = append(out, graphrag.RunEvent{Seq: asInt(r.Values[0]), Data: asBytes(r.Values[1])})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("neo4j: events of run %s: %w", id, err)
	}
	return out, nil
}

// DeleteRunEvents removes a run's events.
func (s *Store) DeleteRunEvents(ctx context.Context, id string) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `MATCH (x:RunEvent {runId: $run}) DELETE x`, map[string]any{"run": id})
	})
	if err != nil {
		return fmt.Errorf("neo4j: delete events of run %s: %w", id, err)
	}
	return nil
}

// TakeLease gives holder the lease name for ttl when it is free, expired or holder's already, by the
// database's clock (the processes sharing it may run on machines whose clocks differ). Setting a
// property first takes the node's write lock, so the holder and time read next are the latest committed:
// of two processes taking a free lease at once, the second sees the first's.
func (s *Store) TakeLease(ctx context.Context, name, holder string, ttl time.Duration) (graphrag.Lease, bool, error) {
	if name == "" || holder == "" {
		return graphrag.Lease{}, false, errors.New("neo4j: take lease: empty name or holder")
	}
	var l graphrag.Lease
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MERGE (l:Lease {name: $name})
			SET l.locked = true
			WITH l, timestamp() AS now
			WITH l, now, (l.holder IS NULL OR l.holder = $holder OR l.until <= now) AS take
			SET l.holder = CASE WHEN take THEN $holder ELSE l.holder END,
				l.until = CASE WHEN take THEN now + $ttl ELSE l.until END
			REMOVE l.locked
			RETURN l.holder, l.until, now`, map[string]any{"name": name, "holder": holder, "ttl": ttl.Milliseconds()})
		if err != nil {
			return err
		}
		l = leaseFrom(name, records)
		return nil
	})
	if err != nil {
		return graphrag.Lease{}, false, fmt.Errorf("neo4j: take lease %s: %w", name, err)
	}
	return l, l.Held && l.Holder == holder, nil
}

// Lease reads a lease as it is now, by the database's clock.
func (s *Store) Lease(ctx context.Context, name string) (graphrag.Lease, error) {
	var l graphrag.Lease
	err := s.read(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (l:Lease {name: $name}) RETURN l.holder, l.until, timestamp()`,
			map[string]any{"name": name})
		if err != nil {
			return err
		}
		l = leaseFrom(name, records)
		return nil
	})
	if err != nil {
		return graphrag.Lease{}, fmt.Errorf("neo4j: lease %s: %w", name, err)
	}
	return l, nil
}

// ReleaseLease ends holder's lease.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		return exec(ctx, tx, `MATCH (l:Lease {name: $name}) WHERE l.holder = $holder DELETE l`,
			map[string]any{"name": name, "holder": holder})
	})
	if err != nil {
		return fmt.Errorf("neo4j: release lease %s: %w", name, err)
	}
	return nil
}

// PruneRuns removes the events of runs whose lease is neither held nor ran out after before (by the
// database's clock for held), then the leases that ran out before before, at most graphrag.MaxPruned of
// each.
func (s *Store) PruneRuns(ctx context.Context, before time.Time) (events, leases int, err error) {
	params := map[string]any{"prefix": graphrag.RunLease(""), "before": before.UnixMilli(), "cap": graphrag.MaxPruned}
	err = s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `OPTIONAL MATCH (l:Lease) WHERE l.name STARTS WITH $prefix AND l.until > $before
			WITH collect(substring(l.name, size($prefix))) AS keep
			MATCH (x:RunEvent) WHERE NOT x.runId IN keep
			WITH x LIMIT $cap
			DELETE x
			RETURN count(*)`, params)
		if err != nil {
			return err
		}
		if len(records) > 0 {
			events = asInt(records[0].Values[0])
		}
		records, err = query(ctx, tx, `MATCH (l:Lease) WHERE l.until <= $before
			WITH l LIMIT $cap
			DELETE l
			RETURN count(*)`, params)
		if err != nil {
			return err
		}
		if len(records) > 0 {
			leases = asInt(records[0].Values[0])
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("neo4j: prune runs: %w", err)
	}
	return events, leases, nil
}

// leaseFrom reads a record of holder, until and now (milliseconds since the epoch); none is the zero Lease.
func leaseFrom(name string, records []*neo4j.Record) graphrag.Lease {
	if len(records) == 0 || len(records[0].Values) < 3 {
		return graphrag.Lease{}
	}
	v := records[0].Values
	holder, until, now := asString(v[0]), int64(asInt(v[1])), int64(asInt(v[2]))
	if holder == "" {
		return graphrag.Lease{}
	}
	return graphrag.Lease{Name: name, Holder: holder, Until: time.UnixMilli(until).UTC(), Held: until > now}
}
