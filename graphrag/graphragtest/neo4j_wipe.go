package graphragtest

import (
	"context"
	"fmt"
	"os"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// WipeNeo4j empties the Neo4j database at uri (NEO4J_USERNAME, NEO4J_PASSWORD and NEO4J_DATABASE as
// the environment says): every node is deleted and every vector index dropped, so a store of any
// dimension opens on it. Only for tests: never point it at a database that matters.
func WipeNeo4j(ctx context.Context, uri string) error {
	token := neo4j.NoAuth()
	if user := os.Getenv("NEO4J_USERNAME"); user != "" {
		token = neo4j.BasicAuth(user, os.Getenv("NEO4J_PASSWORD"), "")
	}
	driver, err := neo4j.NewDriverWithContext(uri, token)
	if err != nil {
		return fmt.Errorf("graphragtest: wipe %s: %w", uri, err)
	}
	defer driver.Close(ctx)
	db := neo4j.ExecuteQueryWithDatabase(os.Getenv("NEO4J_DATABASE"))
	for {
		res, err := neo4j.ExecuteQuery(ctx, driver, `MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*)`,
			nil, neo4j.EagerResultTransformer, db)
		if err != nil {
			return fmt.Errorf("graphragtest: wipe %s: %w", uri, err)
		}
		if n, _ := res.Records[0].Values[0].(int64); n == 0 {
			break
		}
	}
	res, err := neo4j.ExecuteQuery(ctx, driver, `SHOW VECTOR INDEXES YIELD name RETURN name`, nil, neo4j.EagerResultTransformer, db)
	if err != nil {
		return fmt.Errorf("graphragtest: wipe %s: %w", uri, err)
	}
	for _, r := range res.Records {
		name, _ := r.Values[0].(string)
		if _, err := neo4j.ExecuteQuery(ctx, driver, "DROP INDEX `"+name+"` IF EXISTS", nil, neo4j.EagerResultTransformer, db); err != nil {
			return fmt.Errorf("graphragtest: wipe %s: %w", uri, err)
		}
	}
	return nil
}
