package neo4j

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// TestParallelIngestOfOverlappingExtractions has 8 goroutines ingest one document each, whose chunks name
// overlapping entities in shuffled orders and the same relations with different values: the database must
// end with one node per key, one edge per relation ID, every mention and every value, and no error.
func TestParallelIngestOfOverlappingExtractions(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	const workers, chunksPerDoc = 8, 6
	shared := []string{"Munich", "Delhi", "Lufthansa", "Air India", "Frankfurt", "Star Alliance"}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		texts := make([]string, chunksPerDoc)
		for i := range texts {
			texts[i] = fmt.Sprintf("worker %d chunk %d", w, i)
		}
		_, chunks := putDoc(t, s, fmt.Sprintf("parallel-%d.txt", w), texts...)
		r := rand.New(rand.NewPCG(uint64(w), 7))
		wg.Go(func() {
			for i, c := range chunks {
				names := append([]string{fmt.Sprintf("Own %d-%d", w, i)}, shared...)
				r.Shuffle(len(names), func(a, b int) { names[a], names[b] = names[b], names[a] })
				x := graphrag.Extraction{ChunkID: c.ID}
				for _, n := range names {
					x.Entities = append(x.Entities, entity(n, "THING"))
				}
				for j := 1; j < len(names); j++ {
					rel := relation(names[j-1], "NEAR", names[j])
					rel.Values = map[string]any{fmt.Sprintf("w%d", w): i}
					x.Relations = append(x.Relations, rel)
				}
				if err := s.PutExtraction(t.Context(), x); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("parallel ingest: %v", err)
	}
	dupes := cypher(t, uri, `MATCH (e:Entity) WITH e.key AS key, count(*) AS n WHERE n > 1 RETURN key`, nil)
	if len(dupes) > 0 {
		t.Errorf("%d entity keys have more than one node", len(dupes))
	}
	dupes = cypher(t, uri, `MATCH ()-[r:RELATED]->() WITH r.id AS id, count(*) AS n WHERE n > 1 RETURN id`, nil)
	if len(dupes) > 0 {
		t.Errorf("%d relation IDs have more than one edge", len(dupes))
	}
	st, err := s.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(shared) + workers*chunksPerDoc; st.Entities != want {
		t.Errorf("%d entities, want %d", st.Entities, want)
	}
	if want := workers * chunksPerDoc * (len(shared) + 1); st.Mentions != want {
		t.Errorf("%d mentions, want %d", st.Mentions, want)
	}
	ents, err := s.Entities(t.Context(), []string{graphrag.NormalizeKey("Munich")})
	if err != nil || len(ents) != 1 {
		t.Fatalf("Entities(munich) = %v, %v", ents, err)
	}
	if len(ents[0].ChunkIDs) != workers*chunksPerDoc || len(ents[0].DocIDs) != workers {
		t.Errorf("Munich is mentioned by %d chunks of %d documents, want %d of %d",
			len(ents[0].ChunkIDs), len(ents[0].DocIDs), workers*chunksPerDoc, workers)
	}
	// Each document's relation counter, kept by the extractions, matches a count of the edges.
	want := map[string]int{}
	for _, r := range cypher(t, uri, `MATCH ()-[r:RELATED]->() UNWIND r.docIds AS doc RETURN doc, count(r)`, nil) {
		want[asString(r.Values[0])] = asInt(r.Values[1])
	}
	docs, err := s.Documents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.Relations != want[d.ID] || d.Relations == 0 {
			t.Errorf("document %s counts %d relations, its edges %d", d.Name, d.Relations, want[d.ID])
		}
	}
	// Every relation's values hold one key per worker that wrote it, and its chunks are those workers'.
	edges, err := s.Neighborhood(t.Context(), []string{graphrag.NormalizeKey("Munich")}, 1, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edges {
		if len(e.Values) != len(e.DocIDs) {
			t.Errorf("relation %s %s %s has values %v from %d documents: an update was lost",
				e.SourceName, e.Type, e.TargetName, e.Values, len(e.DocIDs))
		}
	}
}

// TestPutDocumentInParallelCreatesOnce uploads the same bytes from 8 goroutines: one is told it created
// the document, the others get it back unchanged.
func TestPutDocumentInParallelCreatesOnce(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	src := []byte("the same upload")
	doc := graphrag.Document{ID: graphrag.DocumentID(graphrag.ContentHash(src)), Name: "same.txt"}
	var created atomic.Int32
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			_, isNew, err := s.PutDocument(t.Context(), doc, src)
			errs[i] = err
			if isNew {
				created.Add(1)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if n := created.Load(); n != 1 {
		t.Errorf("%d calls created the document, want 1", n)
	}
	rec := cypher(t, uri, `MATCH (d:Document) RETURN count(d), COUNT { (:Source) }, COUNT { (:Document)-[:HAS_SOURCE]->(:Source) }`, nil)
	if d, src, links := asInt(rec[0].Values[0]), asInt(rec[0].Values[1]), asInt(rec[0].Values[2]); d != 1 || src != 1 || links != 1 {
		t.Errorf("%d documents, %d sources, %d links, want 1 each", d, src, links)
	}
}

// TestWriteRetriesDeadlocks makes two write transactions lock two nodes in opposite orders. Neo4j kills one
// with a deadlock, a transient error: the driver must run its function again, and both writes must land
// exactly once.
func TestWriteRetriesDeadlocks(t *testing.T) {
	uri := testURI(t)
	s := openTest(t, 4)
	cypher(t, uri, `CREATE (:Entity {key: 'lock-a', n: 0}), (:Entity {key: 'lock-b', n: 0})`, nil)
	var attempts atomic.Int32
	var firstLocks sync.WaitGroup
	firstLocks.Add(2)
	bump := func(ctx context.Context, tx neo4j.ManagedTransaction, key string) error {
		return exec(ctx, tx, `MATCH (e:Entity {key: $key}) SET e.n = e.n + 1`, map[string]any{"key": key})
	}
	work := func(first, second string) txWork {
		return func(ctx context.Context, tx neo4j.ManagedTransaction) error {
			n := attempts.Add(1)
			if err := bump(ctx, tx, first); err != nil {
				return err
			}
			if n <= 2 {
				// Both first attempts hold their first lock before either asks for its second.
				firstLocks.Done()
				firstLocks.Wait()
			}
			return bump(ctx, tx, second)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = s.write(t.Context(), work("lock-a", "lock-b")) })
	wg.Go(func() { errs[1] = s.write(t.Context(), work("lock-b", "lock-a")) })
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("writes failed instead of being retried: %v", err)
	}
	if n := attempts.Load(); n < 3 {
		t.Errorf("%d attempts: no transaction was retried, so no deadlock was provoked", n)
	}
	rec := cypher(t, uri, `MATCH (e:Entity) WHERE e.key STARTS WITH 'lock-' RETURN collect(e.n)`, nil)
	for _, n := range asList(first(rec)) {
		if asInt(n) != 2 {
			t.Errorf("counters %v, want [2 2]: a retried write landed twice or not at all", first(rec))
			break
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
