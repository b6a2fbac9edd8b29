package neo4j

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopwise/hopwise/graphrag"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// unreachableStore is a Store whose server went away after Open: nothing listens on port 1.
func unreachableStore(t *testing.T) *Store {
	t.Helper()
	driver, err := neo4j.NewDriverWithContext("bolt://127.0.0.1:1", neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = driver.Close(context.Background()) })
	return &Store{driver: driver, uri: "bolt://127.0.0.1:1", opt: Options{EmbedDim: 4}, logger: testLogger(t), probeAfter: 200 * time.Millisecond}
}

func TestCallsFailFastWhenUnreachable(t *testing.T) {
	s := unreachableStore(t)
	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"read", func(ctx context.Context) error { _, err := s.Documents(ctx); return err }},
		{"write", func(ctx context.Context) error { return s.MarkChunkFailed(ctx, "c1", "x") }},
		{"read again", func(ctx context.Context) error { _, err := s.Stats(ctx); return err }},
		{"ping", s.Ping},
	}
	for _, c := range calls {
		start := time.Now()
		err := c.call(t.Context())
		if !errors.Is(err, graphrag.ErrUnavailable) {
			t.Errorf("%s: got %v, want ErrUnavailable", c.name, err)
		}
		// Without the guard the driver would retry for MaxTransactionRetryTime (30 s).
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s took %v to fail", c.name, d)
		}
	}
	if !s.down.Load() {
		t.Error("the store is not marked down after failed calls")
	}
}

func TestCallerCancellationIsNotUnavailability(t *testing.T) {
	s := unreachableStore(t)
	s.probeAfter = time.Hour
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	_, err := s.Documents(ctx)
	if s.down.Load() {
		t.Error("a call the caller cancelled marked the store down")
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, graphrag.ErrUnavailable) {
		t.Fatalf("got %v, want the caller's deadline", err)
	}
}
