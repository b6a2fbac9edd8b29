package websearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// SearXNG searches through a SearXNG instance's JSON API (GET /search?q=...&format=json). The instance
// must list "json" among its search formats, or it answers 403.
type SearXNG struct {
	base *url.URL
	hc   *http.Client
}

var _ Searcher = (*SearXNG)(nil)

type searxngResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search returns at most n results for query.
func (s *SearXNG) Search(ctx context.Context, query string, n int) ([]Result, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, nil
	}
	u := endpoint(s.base, "/search")
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("websearch: searxng: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("websearch: searxng: %w", err)
	}
	defer resp.Body.Close()
	var body searxngResponse
	if err := decodeResponse(resp, &body); err != nil {
		if resp.StatusCode == http.StatusForbidden {
			err = fmt.Errorf("%w (enable the json format in the instance's settings.yml)", err)
		}
		return nil, fmt.Errorf("websearch: searxng: %w", err)
	}
	out := make([]Result, 0, len(body.Results))
	for _, r := range body.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return clean(out, n), nil
}
