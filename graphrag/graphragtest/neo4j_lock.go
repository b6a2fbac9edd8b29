package graphragtest

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Tests that use the Neo4j of NEO4J_URI wipe it, and `go test ./...` runs packages in parallel: the store
// contract suite (graphrag/neo4j) and the re-index tests of graphrag and cmd/hopwise would empty each
// other's database mid-test. They share one lock file, so one package at a time uses the database.

// neo4jLockPath is the machine-wide lock of the test Neo4j.
var neo4jLockPath = filepath.Join(os.TempDir(), "hopwise-test-neo4j.lock")

// LockNeo4j waits for the test Neo4j and holds it until unlock is called.
func LockNeo4j() (unlock func(), err error) {
	f, err := os.OpenFile(neo4jLockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock of the test Neo4j: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock of the test Neo4j %s: %w", neo4jLockPath, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// LockNeo4jFor holds the test Neo4j for the rest of tb.
func LockNeo4jFor(tb testing.TB) {
	tb.Helper()
	unlock, err := LockNeo4j()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(unlock)
}
