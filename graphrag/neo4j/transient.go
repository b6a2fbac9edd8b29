package neo4j

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// WrapError is the store's error for an error of the driver: one wrapping graphrag.ErrUnavailable when
// the server could not be reached, graphrag.ErrTransient when the same write may succeed when made again
// (isTransient), err itself otherwise. guard returns it for every call.
func WrapError(err error) error {
	switch {
	case err == nil:
		return nil
	case isUnavailable(err):
		return fmt.Errorf("%w: %w", graphrag.ErrUnavailable, err)
	case isTransient(err):
		return fmt.Errorf("%w: %w", graphrag.ErrTransient, err)
	}
	return err
}

// isTransient reports whether a Neo4j error may go away when the same write is made again: a transient
// error (Neo.TransientError.*: a deadlock, a lock wait that timed out) or a cluster's leader switch, also
// when the driver's own retries ran out on one. (A lost or timed-out connection is isUnavailable's; one
// lost while committing may or may not have committed: the ingester only makes idempotent writes again.)
func isTransient(err error) bool {
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &limit) {
		for _, e := range limit.Errors {
			if isTransient(e) {
				return true
			}
		}
		return false
	}
	var dbErr *neo4j.Neo4jError
	if !errors.As(err, &dbErr) {
		return false
	}
	// The driver's own classification (IsRetriable) parses the code into the error on first use, a write
	// to an error value that may be read from several goroutines: the code is read here instead.
	switch dbErr.Code {
	case "Neo.ClientError.Cluster.NotALeader", "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase":
		return true // a leader switch: the write goes to the new leader when made again
	case "Neo.TransientError.Transaction.LockClientStopped", "Neo.TransientError.Transaction.Terminated":
		return false // the transaction was stopped on purpose (Neo4j 5 classifies these as client errors)
	}
	return strings.HasPrefix(dbErr.Code, "Neo.TransientError.")
}
