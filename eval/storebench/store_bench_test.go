package storebench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/neo4j"
	"github.com/hopwise/hopwise/graphrag/sqlite"
	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// sizes are the corpus sizes measured; HOPWISE_BENCH_SIZES (e.g. "1000,10000") narrows them, and Neo4j
// stops at HOPWISE_BENCH_NEO4J_MAX chunks (default 10000: a 100k corpus takes long to build on two cores).
func sizes(b *testing.B, kind string) []int {
	all := []int{1_000, 10_000, 100_000}
	if v := os.Getenv("HOPWISE_BENCH_SIZES"); v != "" {
		all = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("HOPWISE_BENCH_SIZES: %q is not a size", f)
			}
			all = append(all, n)
		}
	}
	limit := 1 << 30
	if kind == "neo4j" {
		limit = 10_000
		if v := os.Getenv("HOPWISE_BENCH_NEO4J_MAX"); v != "" {
			limit, _ = strconv.Atoi(v)
		}
	}
	var out []int
	for _, n := range all {
		if n <= limit {
			out = append(out, n)
		}
	}
	return out
}

// cacheDir keeps built SQLite corpora between runs: HOPWISE_BENCH_CACHE, else the user cache directory.
func cacheDir(b *testing.B) string {
	dir := os.Getenv("HOPWISE_BENCH_CACHE")
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		dir = filepath.Join(base, "hopwise-bench")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

var open = struct {
	sync.Mutex
	stores map[string]graphrag.Store
}{stores: map[string]graphrag.Store{}}

func TestMain(m *testing.M) {
	code := m.Run()
	open.Lock()
	for _, s := range open.stores {
		s.Close()
	}
	open.Unlock()
	os.Exit(code)
}

// sqlitePath is the cached corpus file of n chunks, built when missing.
func sqlitePath(b *testing.B, n int) string {
	path := filepath.Join(cacheDir(b), fmt.Sprintf("%s-sqlite-%d.db", corpusVersion, n))
	return cachedSQLite(b, path, "sqlite", n, true)
}

func buildProgress(b *testing.B, kind string, n int, start time.Time) func(done, total int) {
	return func(done, total int) {
		if done%max(total/10, 1) == 0 {
			b.Logf("building the %s corpus of %d chunks: %d/%d documents after %v", kind, n, done, total, time.Since(start).Round(time.Second))
		}
	}
}

// sqliteStore opens the cached corpus of n chunks, once per test binary.
func sqliteStore(b *testing.B, n int) graphrag.Store {
	open.Lock()
	defer open.Unlock()
	key := fmt.Sprintf("sqlite-%d", n)
	if s := open.stores[key]; s != nil {
		return s
	}
	st, err := sqlite.Open(context.Background(), sqlitePath(b, n), sqlite.Options{EmbedDim: dim, EmbedModel: "storebench"},
		slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	open.stores[key] = st
	return st
}

// neo4jStore returns a store on NEO4J_URI holding the corpus of n chunks. The database holds one corpus at
// a time, marked by a StoreBench node: another size (or anything else) is wiped, schema included, and the
// corpus built.
func neo4jStore(b *testing.B, n int) graphrag.Store {
	uri := os.Getenv("NEO4J_URI")
	if uri == "" {
		b.Skip("NEO4J_URI not set: start a Neo4j with make neo4j (the benchmark wipes its database)")
	}
	open.Lock()
	defer open.Unlock()
	key := fmt.Sprintf("neo4j-%d", n)
	if s := open.stores[key]; s != nil {
		return s
	}
	for k, s := range open.stores {
		if strings.HasPrefix(k, "neo4j-") {
			s.Close()
			delete(open.stores, k)
		}
	}
	ctx := context.Background()
	d, err := driver.NewDriverWithContext(uri, driver.NoAuth())
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close(ctx)
	marker := corpusVersion + "/" + strconv.Itoa(n)
	res, err := driver.ExecuteQuery(ctx, d, `OPTIONAL MATCH (m:StoreBench) RETURN m.corpus`, nil, driver.EagerResultTransformer)
	if err != nil {
		b.Fatal(err)
	}
	built := len(res.Records) > 0 && res.Records[0].Values[0] == marker
	if !built {
		wipeNeo4j(b, ctx, d)
	}
	st, err := neo4j.Open(ctx, uri, "", "", neo4j.Options{EmbedDim: dim, EmbedModel: "storebench"}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	if !built {
		start := time.Now()
		if err := newCorpus(n).seed(ctx, st, 4, 0, true, buildProgress(b, "neo4j", n, start)); err != nil {
			st.Close()
			b.Fatalf("build the neo4j corpus of %d chunks: %v", n, err)
		}
		if _, err := driver.ExecuteQuery(ctx, d, `MERGE (m:StoreBench) SET m.corpus = $c`, map[string]any{"c": marker},
			driver.EagerResultTransformer); err != nil {
			b.Fatal(err)
		}
		b.Logf("built the neo4j corpus of %d chunks in %v", n, time.Since(start).Round(time.Second))
	}
	open.stores[key] = st
	return st
}

// wipeNeo4j deletes every node, constraint and index, so that the store creates its schema anew.
func wipeNeo4j(b *testing.B, ctx context.Context, d driver.DriverWithContext) {
	for {
		res, err := driver.ExecuteQuery(ctx, d, `MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*)`, nil, driver.EagerResultTransformer)
		if err != nil {
			b.Fatalf("wipe: %v", err)
		}
		if n, _ := res.Records[0].Values[0].(int64); n == 0 {
			break
		}
	}
	for _, show := range []string{`SHOW CONSTRAINTS YIELD name RETURN "DROP CONSTRAINT " + name`,
		`SHOW INDEXES YIELD name, type WHERE type <> "LOOKUP" RETURN "DROP INDEX " + name`} {
		res, err := driver.ExecuteQuery(ctx, d, show, nil, driver.EagerResultTransformer)
		if err != nil {
			b.Fatalf("wipe: %v", err)
		}
		for _, r := range res.Records {
			stmt, _ := r.Values[0].(string)
			if _, err := driver.ExecuteQuery(ctx, d, stmt+" IF EXISTS", nil, driver.EagerResultTransformer); err != nil {
				b.Fatalf("wipe: %s: %v", stmt, err)
			}
		}
	}
}

// forEachStore runs bench on each store kind and corpus size, as sub-benchmarks store=KIND/chunks=N.
func forEachStore(b *testing.B, bench func(b *testing.B, st graphrag.Store, c corpus)) {
	for _, kind := range []string{"sqlite", "neo4j"} {
		for _, n := range sizes(b, kind) {
			b.Run(fmt.Sprintf("store=%s/chunks=%d", kind, n), func(b *testing.B) {
				var st graphrag.Store
				if kind == "sqlite" {
					st = sqliteStore(b, n)
				} else {
					st = neo4jStore(b, n)
				}
				bench(b, st, newCorpus(n))
			})
		}
	}
}
