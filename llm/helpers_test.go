package llm_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// newClient returns a client for s with millisecond timeouts and backoff;
// edit may change the config first.
func newClient(t *testing.T, s *llmtest.Server, edit func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{
		BaseURL:           s.URL(),
		APIKey:            "test-key",
		Model:             "test-model",
		EmbedModel:        "test-embed",
		Timeout:           2 * time.Second,
		StreamIdleTimeout: 200 * time.Millisecond,
		BackoffBase:       5 * time.Millisecond,
		BackoffMax:        20 * time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	return llm.New(cfg, nil)
}

func user(text string) []llm.Message {
	return []llm.Message{{Role: "system", Content: "You grade documents."}, {Role: "user", Content: text}}
}

// gaps returns the time between consecutive recorded requests.
func gaps(reqs []llmtest.Request) []time.Duration {
	var out []time.Duration
	for i := 1; i < len(reqs); i++ {
		out = append(out, reqs[i].At.Sub(reqs[i-1].At))
	}
	return out
}

// noGoroutineLeft fails unless the goroutines are back to before within two seconds.
func noGoroutineLeft(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("goroutines: %d before, %d after\n%s", before, after, buf[:runtime.Stack(buf, true)])
	}
}
