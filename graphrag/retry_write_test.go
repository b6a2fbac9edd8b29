package graphrag_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/hopwise/hopwise/graphrag/neo4j"
	driver "github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

func TestIsTransient(t *testing.T) {
	deadlock := &driver.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected", Msg: "ForsetiClient can't acquire ExclusiveLock"}
	syntax := &driver.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "Invalid input"}
	cases := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("neo4j: put extraction of c1: %w", deadlock), true},
		{&driver.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable"}, true},
		{&driver.Neo4jError{Code: "Neo.ClientError.Cluster.NotALeader"}, true},
		{&driver.TransactionExecutionLimit{Cause: "timeout (exceeded max retry time: 30s)", Errors: []error{deadlock}}, true},
		{&driver.ConnectivityError{Inner: errors.New("read tcp: connection reset by peer")}, true},
		{fmt.Errorf("%w: bolt://127.0.0.1:7687 does not answer: EOF", graphrag.ErrUnavailable), true},
		{fmt.Errorf("neo4j: set embeddings: %w", context.DeadlineExceeded), true},
		{fmt.Errorf("neo4j: put extraction of c1: %w", syntax), false},
		{&driver.TransactionExecutionLimit{Cause: "timeout", Errors: []error{syntax}}, false},
		{fmt.Errorf("neo4j: set embeddings: %w", context.Canceled), false},
		{fmt.Errorf("document d1: %w", graphrag.ErrNotFound), false},
		{fmt.Errorf("chunk c1: %w", graphrag.ErrDimension), false},
		{errors.New("sqlite: disk I/O error"), false},
		{nil, false},
	}
	for _, c := range cases {
		// As the Neo4j store returns them: it wraps the driver's errors (WrapError).
		if got := graphrag.IsTransient(neo4j.WrapError(c.err)); got != c.want {
			t.Errorf("IsTransient(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// flakyStore fails ingestion writes of the store it wraps as fail says, given the op's n-th call for the
// document and the k faults injected into the op before: with the error it returns, before the write is
// made, or after it (the write committed and its answer lost) when after is true.
type flakyStore struct {
	graphrag.Store
	fail func(op, doc string, n, k int) (err error, after bool)

	mu       sync.Mutex
	calls    map[string]int // by op and document
	injected map[string]int // by op
}

func newFlaky(s graphrag.Store, fail func(op, doc string, n, k int) (error, bool)) *flakyStore {
	return &flakyStore{Store: s, fail: fail, calls: map[string]int{}, injected: map[string]int{}}
}

func (f *flakyStore) write(op, doc string, write func() error) error {
	f.mu.Lock()
	f.calls[op+" "+doc]++
	err, after := f.fail(op, doc, f.calls[op+" "+doc], f.injected[op])
	if err != nil {
		f.injected[op]++
	}
	f.mu.Unlock()
	if err == nil {
		return write()
	}
	if after {
		if werr := write(); werr != nil {
			return werr
		}
	}
	return err
}

func (f *flakyStore) count(m map[string]int, key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return m[key]
}

// docOfChunk is the document of a chunk ID (graphrag.ChunkID).
func docOfChunk(id string) string { return id[:max(0, strings.LastIndex(id, "-"))] }

func (f *flakyStore) SetDocumentStatus(ctx context.Context, id string, st graphrag.DocStatus, reason string, meta graphrag.DocumentMeta) error {
	return f.write("status", id, func() error { return f.Store.SetDocumentStatus(ctx, id, st, reason, meta) })
}

func (f *flakyStore) PutChunks(ctx context.Context, docID string, chunks []graphrag.Chunk) error {
	return f.write("chunks", docID, func() error { return f.Store.PutChunks(ctx, docID, chunks) })
}

func (f *flakyStore) SetEmbeddings(ctx context.Context, vectors map[string][]float32) error {
	doc := ""
	for id := range vectors {
		doc = docOfChunk(id)
	}
	return f.write("embeddings", doc, func() error { return f.Store.SetEmbeddings(ctx, vectors) })
}

func (f *flakyStore) PutExtraction(ctx context.Context, x graphrag.Extraction) error {
	return f.write("extraction", docOfChunk(x.ChunkID), func() error { return f.Store.PutExtraction(ctx, x) })
}

func (f *flakyStore) ReuseChunks(ctx context.Context, reuse map[string]string) error {
	doc := ""
	for id := range reuse {
		doc = docOfChunk(id)
	}
	return f.write("reuse", doc, func() error { return f.Store.ReuseChunks(ctx, reuse) })
}

func (f *flakyStore) ReplaceDocument(ctx context.Context, id string) error {
	return f.write("replace", id, func() error { return f.Store.ReplaceDocument(ctx, id) })
}

func (f *flakyStore) MarkChunkFailed(ctx context.Context, chunkID, reason string) error {
	return f.write("failed chunk", docOfChunk(chunkID), func() error { return f.Store.MarkChunkFailed(ctx, chunkID, reason) })
}

// transientErrors are the transient errors a Neo4j write gives back, as the store wraps them.
var transientErrors = []error{
	fmt.Errorf("neo4j: write: %w", neo4j.WrapError(&driver.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected", Msg: "ForsetiClient[tx 12] can't acquire ExclusiveLock"})),
	fmt.Errorf("neo4j: write: %w", context.DeadlineExceeded),
	fmt.Errorf("%w: bolt://127.0.0.1:7687 does not answer: read tcp 127.0.0.1:50412->127.0.0.1:7687: read: connection reset by peer", graphrag.ErrUnavailable),
	fmt.Errorf("neo4j: write: %w", neo4j.WrapError(&driver.TransactionExecutionLimit{Cause: "timeout (exceeded max retry time: 30s)",
		Errors: []error{&driver.Neo4jError{Code: "Neo.TransientError.Transaction.LockAcquisitionTimeout", Msg: "lock wait timed out"}}})),
}

// storeShape is what a user can tell of a store: its documents and their counts, every passage's state,
// the counts of the graph and every relation with its ends and supporting passages.
func storeShape(t *testing.T, s graphrag.Store) string {
	t.Helper()
	ctx := t.Context()
	docs, err := s.Documents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, d := range docs {
		lines = append(lines, fmt.Sprintf("doc %s %s %q chunks=%d embedded=%d extracted=%d failed=%d entities=%d relations=%d",
			d.Name, d.Status, d.Error, d.Chunks, d.ChunksEmbedded, d.ChunksExtracted, d.FailedChunks, d.Entities, d.Relations))
		chunks, err := s.DocumentChunks(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			lines = append(lines, fmt.Sprintf("chunk %s %s %q %d", c.ID, c.Status, c.Error, len(c.Text)))
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, fmt.Sprintf("stats %+v", st))
	links, err := s.GraphLinks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		ids := slices.Sorted(slices.Values(l.ChunkIDs))
		lines = append(lines, fmt.Sprintf("link %s %s->%s %v", l.ID, l.Source, l.Target, ids))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// shapeDiff is the lines of two shapes that differ, for a failure message.
func shapeDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var out []string
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestIngestMakesTransientlyFailedWritesAgain: a store whose writes fail now and then with a transient error
// (a Neo4j deadlock, a write out of time, a reset connection, the driver's retries run out), before or after
// the write is made, ends with every document done and the same passages and graph as without faults; a
// document whose extraction writes keep failing ends failed, saying so, after a bounded number of tries,
// and another whose write fails for good (not transiently) fails at once, tried once; the other document
// is done, and a retry once the store works finishes both with the store as without faults. On SQLite and,
// with NEO4J_URI, on Neo4j.
func TestIngestMakesTransientlyFailedWritesAgain(t *testing.T) {
	for kind, open := range reindexStores(t) {
		t.Run(kind, func(t *testing.T) { testTransientWrites(t, open) })
	}
}

func testTransientWrites(t *testing.T, open func(t *testing.T, dim int, model string) graphrag.Store) {
	names := []string{"airline-registry.md", "munich-city-distances.md", "munich-travel-tips.md"}
	files := demoFiles(t, names...)
	files["policy.md"] = policyV1 // replaced by policyV2 in two of the runs
	docID := func(name string) string { return graphrag.DocumentID(graphrag.ContentHash([]byte(files[name]))) }
	opt := graphrag.IngestOptions{Workers: 2, EmbedBatch: 2,
		WriteRetry: graphrag.WriteRetry{Attempts: 3, Backoff: 5 * time.Millisecond, MaxWait: 20 * time.Millisecond}}

	// replace uploads policyV2 in place of policy.md and waits until its job has ended.
	replace := func(t *testing.T, env *testEnv) {
		doc, _, err := env.ingester.SubmitReplacing(t.Context(), "policy.md", "", strings.NewReader(policyV2))
		if err != nil || doc.Replaces == "" {
			t.Fatalf("SubmitReplacing = %+v, %v; want a new version", doc, err)
		}
		env.waitFinished()
		if d, err := env.store.Document(t.Context(), doc.ID); err != nil || d.Status != graphrag.StatusDone || d.Replaces != "" {
			t.Errorf("the new version: %+v, %v; want it done in place of the old", d, err)
		}
	}

	var want, wantReplaced string
	t.Run("without faults", func(t *testing.T) {
		env := newEnvOn(t, open(t, 64, "test-embed"), opt)
		for name, p := range env.ingest(files) {
			if p.Status != graphrag.StatusDone {
				t.Fatalf("%s: %+v", name, p)
			}
		}
		want = storeShape(t, env.store)
		replace(t, env)
		wantReplaced = storeShape(t, env.store)
	})
	if want == "" || wantReplaced == "" {
		t.FailNow()
	}

	t.Run("now and then", func(t *testing.T) {
		// Every op's first, fourth, seventh... call on each document fails, with the op's errors in turn,
		// every second fault of the op after the write was made (the new version's reuse and replace, made
		// once each, after); the try after a fault succeeds.
		flaky := newFlaky(open(t, 64, "test-embed"), func(op, doc string, n, k int) (error, bool) {
			if n%3 != 1 {
				return nil, false
			}
			return transientErrors[k%len(transientErrors)], k%2 == 1 || op == "reuse" || op == "replace"
		})
		env := newEnvOn(t, flaky, opt)
		for name, p := range env.ingest(files) {
			if p.Status != graphrag.StatusDone {
				t.Errorf("%s: %+v, want done", name, p)
			}
		}
		for _, op := range []string{"status", "chunks", "embeddings", "extraction"} {
			if n := flaky.count(flaky.injected, op); n < 2 {
				t.Errorf("%d faults injected into the %s writes, want one before and one after the write at least", n, op)
			}
		}
		if got := storeShape(t, env.store); got != want {
			t.Errorf("after transient faults the store differs from the one without:\n%s", shapeDiff(got, want))
		}
		replace(t, env)
		for _, op := range []string{"reuse", "replace"} {
			if n := flaky.count(flaky.injected, op); n == 0 {
				t.Errorf("no fault injected into the %s writes", op)
			}
		}
		if got := storeShape(t, env.store); got != wantReplaced {
			t.Errorf("after a replace with transient faults the store differs from the one without:\n%s", shapeDiff(got, wantReplaced))
		}
	})

	t.Run("keep failing", func(t *testing.T) {
		keeps, broken, fine := docID("munich-city-distances.md"), docID("munich-travel-tips.md"), "airline-registry.md"
		var mu sync.Mutex
		faulty := true
		flaky := newFlaky(open(t, 64, "test-embed"), func(op, doc string, _, _ int) (error, bool) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case !faulty:
				return nil, false
			case op == "extraction" && doc == keeps:
				return transientErrors[0], false
			case op == "embeddings" && doc == broken:
				// Not at the passages' write: SQLite deletes the source of a failed document, which a
				// document failed before its passages were stored would need to be read again.
				return fmt.Errorf("neo4j: set embeddings: %w", &driver.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintValidationFailed", Msg: "already exists"}), false
			}
			return nil, false
		})
		env := newEnvOn(t, flaky, opt)
		final := env.ingest(files)
		if p := final[fine]; p.Status != graphrag.StatusDone {
			t.Errorf("%s beside the failing documents: %+v, want done", fine, p)
		}
		d, err := env.store.Document(t.Context(), keeps)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{"store extraction", "Neo.TransientError.Transaction.DeadlockDetected", "tried 3 times", "the store kept failing"} {
			if d.Status != graphrag.StatusFailed || !strings.Contains(d.Error, part) {
				t.Errorf("the document whose extraction writes keep failing: %s %q, want failed saying %q", d.Status, d.Error, part)
			}
		}
		chunks, err := env.store.DocumentChunks(t.Context(), keeps)
		if err != nil {
			t.Fatal(err)
		}
		left := 0
		for _, c := range chunks {
			if c.Status == graphrag.ChunkEmbedded {
				left++
			}
		}
		if n := flaky.count(flaky.calls, "extraction "+keeps); left == 0 || n < 3 || n > 3*len(chunks) {
			t.Errorf("%d of %d passages left to extract after %d extraction writes: want each write tried 3 times at most, one at least",
				left, len(chunks), n)
		}
		b, err := env.store.Document(t.Context(), broken)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != graphrag.StatusFailed || !strings.Contains(b.Error, "ConstraintValidationFailed") || strings.Contains(b.Error, "tried") {
			t.Errorf("the document whose write fails for good: %s %q, want failed with the store's error, not retried", b.Status, b.Error)
		}
		if n := flaky.count(flaky.calls, "embeddings "+broken); n != 1 {
			t.Errorf("a write that fails for good was made %d times, want once", n)
		}

		mu.Lock()
		faulty = false
		mu.Unlock()
		for _, id := range []string{keeps, broken} {
			if d := env.retry(id); d.Status != graphrag.StatusDone {
				t.Errorf("retry of %s once the store works: %s %q", d.Name, d.Status, d.Error)
			}
		}
		if got := storeShape(t, env.store); got != want {
			t.Errorf("after the failures and their retries the store differs from the one without faults:\n%s", shapeDiff(got, want))
		}
	})
}
