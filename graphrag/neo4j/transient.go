package neo4j

import (
	"errors"
	"strings"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func init() { graphrag.RegisterTransient(IsTransient) }

// IsTransient reports whether an error of this store may go away when the same write is made again, for
// graphrag.IsTransient: a Neo4j transient error (Neo.TransientError.*: a deadlock, a lock wait that timed
// out, a database restarting) or a cluster's leader switch, a lost or timed-out connection (also one lost
// while committing, whose commit may or may not have happened: the ingester only makes idempotent writes
// again), and the driver's own retries running out on any of those.
func IsTransient(err error) bool {
	var limit *neo4j.TransactionExecutionLimit
	if errors.As(err, &limit) {
		for _, e := range limit.Errors {
			if IsTransient(e) {
				return true
			}
		}
		return false
	}
	var conn *neo4j.ConnectivityError
	if errors.As(err, &conn) {
		return true
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
