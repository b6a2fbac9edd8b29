package neo4j

import (
	"context"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// readAttempts bounds the tries of a one-statement read that meets a transient error.
const readAttempts = 3

// readRecords runs one read statement as an auto-commit transaction and returns all its records. It
// costs one round trip where a managed transaction (read) costs two, its BEGIN sent with the statement
// and then its COMMIT; the searches and reads of a question are single statements, and Neo4j's reads
// are read-committed either way. A transient error (a connection the server closed, a leader change) is
// tried again on a fresh connection, up to readAttempts times.
func (s *Store) readRecords(ctx context.Context, cypher string, params map[string]any) ([]*neo4j.Record, error) {
	var records []*neo4j.Record
	cypher, params = s.scope(cypher, params) // into the store's workspace (workspace.go)
	err := s.guard(ctx, func(ctx context.Context) error {
		session := s.driver.NewSession(ctx, neo4j.SessionConfig{DatabaseName: s.opt.Database, AccessMode: neo4j.AccessModeRead})
		defer session.Close(context.WithoutCancel(ctx))
		for attempt := 1; ; attempt++ {
			res, err := session.Run(ctx, cypher, params)
			if err == nil {
				if records, err = res.Collect(ctx); err == nil {
					return nil
				}
			}
			if attempt == readAttempts || !neo4j.IsRetryable(err) {
				return err
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
			}
		}
	})
	return records, err
}
