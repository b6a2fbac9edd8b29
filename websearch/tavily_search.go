package websearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Tavily searches through a Tavily-compatible API: POST /search with api_key, query and max_results.
type Tavily struct {
	base *url.URL
	key  string
	hc   *http.Client
}

var _ Searcher = (*Tavily)(nil)

type tavilyRequest struct {
	APIKey     string `json:"api_key,omitempty"`
	Query      string `json:"query"`
	MaxResults int    `json:"max_results"`
}

type tavilyResponse struct {
	Results []struct {
		Title   string `json:"title"`
		URL     string `json:"url"`
		Content string `json:"content"`
	} `json:"results"`
}

// Search returns at most n results for query.
func (t *Tavily) Search(ctx context.Context, query string, n int) ([]Result, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, nil
	}
	n = min(max(n, 1), maxResults)
	// Ask for a few more than n: results that link nowhere safe are dropped by clean.
	body, err := json.Marshal(tavilyRequest{APIKey: t.key, Query: query, MaxResults: min(n+2, maxResults)})
	if err != nil {
		return nil, fmt.Errorf("websearch: tavily: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(t.base, "/search").String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("websearch: tavily: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if t.key != "" {
		req.Header.Set("Authorization", "Bearer "+t.key)
	}
	resp, err := t.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("websearch: tavily: %w", err)
	}
	defer resp.Body.Close()
	var out tavilyResponse
	if err := decodeResponse(resp, &out); err != nil {
		return nil, fmt.Errorf("websearch: tavily: %w", err)
	}
	results := make([]Result, 0, len(out.Results))
	for _, r := range out.Results {
		results = append(results, Result{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return clean(results, n), nil
}
