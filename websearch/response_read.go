package websearch

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// decodeResponse reads at most maxBody bytes of a successful JSON response into v.
func decodeResponse(resp *http.Response, v any) error {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("read response: %w", err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %d: %s", resp.StatusCode, cut(oneLine(string(body)), 200))
	}
	if len(body) > maxBody {
		return fmt.Errorf("response larger than %d bytes", maxBody)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "json") {
		return fmt.Errorf("response is %s, not JSON", ct)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}
