package evaltest

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

// Shared locates a directory of the shared benchmark material (bench/musique) beside the repository, searched
// from the working directory of a test; "" when absent. Only the recording of the bench slice uses it: the
// tests read the samples (package samples) and eval/testdata.
func Shared(rel string) string {
	for _, base := range []string{"../../shared", "../../../shared", "../../../../shared"} {
		if fi, err := os.Stat(filepath.Join(base, rel)); err == nil && fi.IsDir() {
			return filepath.Join(base, rel)
		}
	}
	return ""
}

// Client returns a model client for srv that never retries, as tests want.
func Client(srv *llmtest.Server) *llm.Client {
	return llm.New(llm.Config{
		BaseURL: srv.URL(), APIKey: "test", Model: "test-model", EmbedModel: "test-embed",
		MaxRetries: -1, Timeout: 20 * time.Second, StreamIdleTimeout: 20 * time.Second, MaxConcurrency: 16,
	}, nil)
}
