package neo4j

import (
	"context"
	"fmt"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// SweepLeases removes the leases whose names start with prefix and whose time ran out, by the database's
// clock (the one TakeLease uses), at most limit, and returns how many it removed. A lease being taken holds
// the node's write lock (TakeLease sets l.locked first), so the check here sees the latest holder and time.
func (s *Store) SweepLeases(ctx context.Context, prefix string, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var n int
	err := s.write(ctx, func(ctx context.Context, tx neo4j.ManagedTransaction) error {
		records, err := query(ctx, tx, `MATCH (l:Lease) WHERE l.name STARTS WITH $prefix AND l.until <= timestamp()
			WITH l LIMIT $limit
			SET l.locked = true
			WITH l WHERE l.until <= timestamp()
			DELETE l
			RETURN count(*)`, map[string]any{"prefix": prefix, "limit": limit})
		if err != nil {
			return err
		}
		if len(records) > 0 && len(records[0].Values) > 0 {
			n = int(asInt(records[0].Values[0]))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("neo4j: sweep leases %s*: %w", prefix, err)
	}
	return n, nil
}
