package neo4j_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/hopwise/hopwise/graphrag/graphragtest"
)

// TestMain holds the test Neo4j for the whole package when NEO4J_URI names one: its tests wipe it, and
// other packages' tests use it too (graphragtest.LockNeo4j).
func TestMain(m *testing.M) {
	if os.Getenv("NEO4J_URI") == "" {
		os.Exit(m.Run())
	}
	unlock, err := graphragtest.LockNeo4j()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	unlock()
	os.Exit(code)
}
