package neo4j

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// The tests share the one database NEO4J_URI names: each wipes it first, and none runs in parallel.

const testModel = "test-embedder"

// testURI returns NEO4J_URI or skips the test.
func testURI(t testing.TB) string {
	t.Helper()
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		t.Skip("NEO4J_URI not set: start the dev Neo4j with make neo4j")
	}
	return uri
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// openTest wipes the test database, keeping its schema when it was built for dim, and opens a Store on it.
func openTest(t testing.TB, dim int) *Store {
	t.Helper()
	uri := testURI(t)
	wipe(t, uri, dim, false)
	return openOn(t, uri, dim, testModel)
}

// openOn opens a Store on uri and closes it when the test ends.
func openOn(t testing.TB, uri string, dim int, model string) *Store {
	t.Helper()
	s, err := Open(t.Context(), uri, os.Getenv("NEO4J_USERNAME"), os.Getenv("NEO4J_PASSWORD"),
		Options{EmbedDim: dim, EmbedModel: model, Database: os.Getenv("NEO4J_DATABASE")}, testLogger(t))
	if err != nil {
		t.Fatalf("Open(%s, dim %d): %v", uri, dim, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// wipe deletes every node in batches, then drops the vector index when it has another dimension than dim,
// or every constraint and index when dropSchema is set.
func wipe(t testing.TB, uri string, dim int, dropSchema bool) {
	t.Helper()
	ctx := context.WithoutCancel(t.Context())
	driver := rawDriver(t, uri)
	for {
		res, err := neo4j.ExecuteQuery(ctx, driver, `MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS n`,
			nil, neo4j.EagerResultTransformer, testDatabase())
		if err != nil {
			t.Fatalf("wipe: %v", err)
		}
		if asInt(first(res.Records)) == 0 {
			break
		}
	}
	res, err := neo4j.ExecuteQuery(ctx, driver, `SHOW INDEXES YIELD name, type, owningConstraint, options
		RETURN name, type, owningConstraint, options`, nil, neo4j.EagerResultTransformer, testDatabase())
	if err != nil {
		t.Fatalf("wipe: show indexes: %v", err)
	}
	var drops []string
	for _, r := range res.Records {
		name, typ, owner := asString(r.Values[0]), asString(r.Values[1]), r.Values[2]
		dims := asInt(asMap(asMap(r.Values[3])["indexConfig"])["vector.dimensions"])
		switch {
		case typ == "LOOKUP":
		case dropSchema && owner != nil:
			drops = append(drops, "DROP CONSTRAINT "+quoteName(asString(owner))+" IF EXISTS")
		case dropSchema || (typ == "VECTOR" && dims != dim):
			drops = append(drops, "DROP INDEX "+quoteName(name)+" IF EXISTS")
		}
	}
	for _, stmt := range drops {
		if _, err := neo4j.ExecuteQuery(ctx, driver, stmt, nil, neo4j.EagerResultTransformer, testDatabase()); err != nil {
			t.Fatalf("wipe: %s: %v", stmt, err)
		}
	}
}

func quoteName(name string) string { return "`" + name + "`" }

func testDatabase() neo4j.ExecuteQueryConfigurationOption {
	return neo4j.ExecuteQueryWithDatabase(os.Getenv("NEO4J_DATABASE"))
}

// rawDriver is a driver of the test's own, to inspect and prepare the database behind the Store's back.
func rawDriver(t testing.TB, uri string) neo4j.DriverWithContext {
	t.Helper()
	token := neo4j.NoAuth()
	if user := os.Getenv("NEO4J_USERNAME"); user != "" {
		token = neo4j.BasicAuth(user, os.Getenv("NEO4J_PASSWORD"), "")
	}
	driver, err := neo4j.NewDriverWithContext(uri, token)
	if err != nil {
		t.Fatalf("driver: %v", err)
	}
	t.Cleanup(func() { _ = driver.Close(context.Background()) })
	return driver
}

// cypher runs a read query on the test database and returns its records.
func cypher(t testing.TB, uri, q string, params map[string]any) []*neo4j.Record {
	t.Helper()
	res, err := neo4j.ExecuteQuery(t.Context(), rawDriver(t, uri), q, params, neo4j.EagerResultTransformer, testDatabase())
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res.Records
}
