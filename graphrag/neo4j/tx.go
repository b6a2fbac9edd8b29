package neo4j

import (
	"context"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// txWork is the body of a managed transaction. The driver may run it more than once (after a deadlock or
// a lost connection), so it must reset whatever it fills and never call anything but the transaction.
type txWork func(ctx context.Context, tx neo4j.ManagedTransaction) error

// write runs work in a managed write transaction, retried by the driver on transient errors.
func (s *Store) write(ctx context.Context, work txWork) error {
	return s.inSession(ctx, neo4j.AccessModeWrite, work)
}

// read runs work in a managed read transaction.
func (s *Store) read(ctx context.Context, work txWork) error {
	return s.inSession(ctx, neo4j.AccessModeRead, work)
}

func (s *Store) inSession(ctx context.Context, mode neo4j.AccessMode, work txWork) error {
	return s.guard(ctx, func(ctx context.Context) error {
		session := s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.opt.Database, AccessMode: mode})
		defer session.Close(context.WithoutCancel(ctx))
		body := func(tx neo4j.ManagedTransaction) (any, error) { return nil, work(ctx, s.scoped(tx)) }
		var err error
		if mode == neo4j.AccessModeWrite {
			_, err = session.ExecuteWrite(ctx, body)
		} else {
			_, err = session.ExecuteRead(ctx, body)
		}
		return err
	})
}

// query runs one statement in tx and returns all its records.
func query(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) ([]*neo4j.Record, error) {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return nil, err
	}
	return res.Collect(ctx)
}

// exec runs one statement in tx and discards its records.
func exec(ctx context.Context, tx neo4j.ManagedTransaction, cypher string, params map[string]any) error {
	res, err := tx.Run(ctx, cypher, params)
	if err != nil {
		return err
	}
	_, err = res.Consume(ctx)
	return err
}

// Record decoding: Cypher returns map projections, read here into Go values. Missing and null values
// read as zero values.

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func asInt(v any) int {
	switch n := v.(type) {
	case int64:
		return int(n)
	case float64:
		return int(n)
	}
	return 0
}

func asFloat(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	}
	return 0
}

func asStrings(v any) []string {
	list, _ := v.([]any)
	if list == nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func asTime(v any) time.Time {
	t, _ := v.(time.Time)
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

func asBytes(v any) []byte {
	switch b := v.(type) {
	case []byte:
		return b
	case string:
		return []byte(b)
	}
	return nil
}

// first returns the first value of the first record, or nil when there is none.
func first(records []*neo4j.Record) any {
	if len(records) == 0 || len(records[0].Values) == 0 {
		return nil
	}
	return records[0].Values[0]
}

// column returns the first value of every record.
func column(records []*neo4j.Record) []any {
	out := make([]any, 0, len(records))
	for _, r := range records {
		if len(r.Values) > 0 {
			out = append(out, r.Values[0])
		}
	}
	return out
}

// utc returns t in UTC (the driver sends a time's zone name, and "Local" means nothing to the server),
// or now when t is zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now().UTC()
	}
	return t.UTC()
}
