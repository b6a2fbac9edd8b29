package agent

import (
	"context"
	"strings"
	"sync"

	"github.com/hopwise/hopwise/graphrag"
)

// identifierLike reports whether a query names an identifier (graphrag.HasIdentifier). A hypothetical
// passage would invent neighbouring identifiers and drown the exact match, so such queries are searched
// as written.
func identifierLike(q string) bool { return graphrag.HasIdentifier(q) }

// hyde writes a hypothetical answer passage for each query that is not identifier-like, concurrently,
// within the call budget, and returns the passages by query with the number of calls made. A failed call
// leaves that query without a passage.
func (r *run) hyde(ctx context.Context, queries []string) (map[string]string, int) {
	out := map[string]string{}
	if !r.cfg.Techniques.HyDE {
		return out, 0
	}
	var todo []string
	for _, q := range queries {
		if !identifierLike(q) {
			todo = append(todo, q)
		}
	}
	todo = todo[:min(len(todo), max(r.callsLeft()-reserveCalls, 0))]
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for _, q := range todo {
		wg.Go(func() {
			resp, err := r.a.llm.Chat(ctx, request("hyde", promptHyDE, "Question: "+q))
			if err != nil {
				r.a.log.Info("agent: hyde failed; searching with the query alone", "err", err)
				return
			}
			if p := strings.TrimSpace(resp.Content); p != "" {
				mu.Lock()
				out[q] = q + "\n" + p
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out, len(todo)
}
