package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// SweepLeases removes the leases whose names start with prefix and whose time ran out, by this machine's
// clock (the one TakeLease uses), at most limit, and returns how many it removed.
func (s *Store) SweepLeases(ctx context.Context, prefix string, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var n int64
	err := s.write(ctx, "sweep leases", func(tx *sql.Tx) error {
		// name >= prefix AND name < prefix+U+10FFFF reads the names of prefix from the primary key alone
		res, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE name IN (SELECT name FROM leases
			WHERE name >= ? AND name < ? AND expires <= ? LIMIT ?)`,
			prefix, prefix+string(rune(0x10FFFF)), time.Now().UnixNano(), limit)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: sweep leases %s*: %w", strings.TrimSpace(prefix), err)
	}
	return int(n), nil
}
