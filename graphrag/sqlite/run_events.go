package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hopwise/hopwise/graphrag"
)

// AppendRunEvents stores a run's events by sequence number; one stored before keeps its data.
func (s *Store) AppendRunEvents(ctx context.Context, id string, events []graphrag.RunEvent) error {
	if len(events) == 0 {
		return nil
	}
	err := s.write(ctx, "append run events", func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO run_events (run_id, seq, data) VALUES (?, ?, ?)
			ON CONFLICT (run_id, seq) DO NOTHING`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, e := range events {
			if _, err := stmt.ExecContext(ctx, id, e.Seq, e.Data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: append events of run %s: %w", id, err)
	}
	return nil
}

// RunEvents returns a run's events after the sequence number after, in order, at most limit.
func (s *Store) RunEvents(ctx context.Context, id string, after, limit int) ([]graphrag.RunEvent, error) {
	if limit <= 0 || limit > graphrag.MaxRunEvents {
		limit = graphrag.MaxRunEvents
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT seq, data FROM run_events WHERE run_id = ? AND seq > ?
		ORDER BY seq LIMIT ?`, id, after, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: events of run %s: %w", id, err)
	}
	defer rows.Close()
	var out []graphrag.RunEvent
	for rows.Next() {
		var e graphrag.RunEvent
		if err := rows.Scan(&e.Seq, &e.Data); err != nil {
			return nil, fmt.Errorf("sqlite: events of run %s: %w", id, err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: events of run %s: %w", id, err)
	}
	return out, nil
}

// DeleteRunEvents removes a run's events.
func (s *Store) DeleteRunEvents(ctx context.Context, id string) error {
	err := s.write(ctx, "delete run events", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM run_events WHERE run_id = ?`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: delete events of run %s: %w", id, err)
	}
	return nil
}

// TakeLease gives holder the lease name for ttl when it is free, expired or holder's already. Every
// process sharing the file writes through SQLite's one writer at a time, so the check and the take are one
// step; the clock is this machine's, which every process of the file shares.
func (s *Store) TakeLease(ctx context.Context, name, holder string, ttl time.Duration) (graphrag.Lease, bool, error) {
	if name == "" || holder == "" {
		return graphrag.Lease{}, false, errors.New("sqlite: take lease: empty name or holder")
	}
	var l graphrag.Lease
	var now time.Time
	err := s.write(ctx, "take lease", func(tx *sql.Tx) error {
		now = time.Now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, expires) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires
			WHERE leases.holder = excluded.holder OR leases.expires <= ?`,
			name, holder, now.Add(ttl).UnixNano(), now.UnixNano()); err != nil {
			return err
		}
		var err error
		l, err = readLease(ctx, tx, name, now)
		return err
	})
	if err != nil {
		return graphrag.Lease{}, false, fmt.Errorf("sqlite: take lease %s: %w", name, err)
	}
	return l, l.Held && l.Holder == holder, nil
}

// Lease reads a lease as it is now.
func (s *Store) Lease(ctx context.Context, name string) (graphrag.Lease, error) {
	l, err := readLease(ctx, s.reader, name, time.Now())
	if err != nil {
		return graphrag.Lease{}, fmt.Errorf("sqlite: lease %s: %w", name, err)
	}
	return l, nil
}

// ReleaseLease ends holder's lease.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	err := s.write(ctx, "release lease", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder)
		return err
	})
	if err != nil {
		return fmt.Errorf("sqlite: release lease %s: %w", name, err)
	}
	return nil
}

// PruneRuns removes the events of runs whose lease is neither held nor ran out after before, then the
// leases that ran out before before, at most graphrag.MaxPruned of each.
func (s *Store) PruneRuns(ctx context.Context, before time.Time) (events, leases int, err error) {
	prefix := graphrag.RunLease("")
	err = s.write(ctx, "prune runs", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM run_events WHERE run_id IN (
			SELECT DISTINCT run_id FROM run_events WHERE run_id NOT IN (
				SELECT substr(name, ?) FROM leases WHERE substr(name, 1, ?) = ? AND expires > ?)
			LIMIT ?)`, len(prefix)+1, len(prefix), prefix, before.UnixNano(), graphrag.MaxPruned)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		events = int(n)
		res, err = tx.ExecContext(ctx, `DELETE FROM leases WHERE name IN (
			SELECT name FROM leases WHERE expires <= ? LIMIT ?)`, before.UnixNano(), graphrag.MaxPruned)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		leases = int(n)
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("sqlite: prune runs: %w", err)
	}
	return events, leases, nil
}

// rowQueryer is a pool or a transaction, read one row at a time.
type rowQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func readLease(ctx context.Context, q rowQueryer, name string, now time.Time) (graphrag.Lease, error) {
	var holder string
	var expires int64
	err := q.QueryRowContext(ctx, `SELECT holder, expires FROM leases WHERE name = ?`, name).Scan(&holder, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return graphrag.Lease{}, nil
	}
	if err != nil {
		return graphrag.Lease{}, err
	}
	until := fromNanos(expires)
	return graphrag.Lease{Name: name, Holder: holder, Until: until, Held: until.After(now)}, nil
}

// runSchema holds the events of the answers being written and the leases on work under way (migration 11).
const runSchema = `CREATE TABLE run_events (
	run_id TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	data   BLOB NOT NULL,
	PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE leases (
	name    TEXT PRIMARY KEY,
	holder  TEXT NOT NULL,
	expires INTEGER NOT NULL
) WITHOUT ROWID;`
