package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hopwise/hopwise/graphrag"
)

var concurrencyCases = []testCase{
	{"parallel PutExtraction over overlapping entities", testParallelExtraction},
}

// testParallelExtraction has 8 goroutines, two per document, extract chunks that all name Munich and
// Lufthansa and the same relation between them, each twice: the store must end with one node per key
// and one relation per ID, without error.
func testParallelExtraction(t *testing.T, f *fixture) {
	const workers = 8
	var chunks []graphrag.Chunk
	for d := range workers / 2 {
		doc := f.doc(fmt.Sprintf("upload-%d.txt", d), fmt.Sprintf("upload %d", d))
		chunks = append(chunks, f.chunks(doc, "Lufthansa hub Munich, gate A.", "Lufthansa hub Munich, gate B.")...)
	}
	f.embedAll(chunks)
	munich, lh := ent("Munich", "CITY", "city"), ent("Lufthansa", "ORGANIZATION", "airline")
	hub := rel(lh, "HUB_AT", munich, map[string]any{"since": 1958})
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for i, c := range chunks {
		gate := ent(fmt.Sprintf("Gate %c%d", 'A'+i, i), "GATE", "a gate")
		x := graphrag.Extraction{
			ChunkID:   c.ID,
			Entities:  []graphrag.Entity{munich, lh, gate},
			Relations: []graphrag.Relation{hub, rel(gate, "LOCATED_AT", munich, nil)},
		}
		wg.Go(func() {
			for range 2 {
				if err := f.s.PutExtraction(f.ctx, x); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("parallel PutExtraction: %v", err)
	}
	f.wantStats("after parallel extraction", graphrag.Stats{
		Documents: workers / 2, Chunks: workers, Embedded: workers, Entities: 2 + workers, Relations: 1 + workers, Mentions: 3 * workers,
	})
	if e := f.entity(munich.Key); len(e.ChunkIDs) != workers || len(e.DocIDs) != workers/2 {
		t.Errorf("Munich has %d chunks and %d documents, want %d and %d", len(e.ChunkIDs), len(e.DocIDs), workers, workers/2)
	}
	for _, e := range f.neighborhood([]string{lh.Key}, 1, 10) {
		if e.ID == hub.ID && len(e.ChunkIDs) != workers {
			t.Errorf("shared relation supported by %d chunks, want %d", len(e.ChunkIDs), workers)
		}
	}
}
