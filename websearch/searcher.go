// Package websearch asks a web search provider for pages about a question, for the agent's corrective
// fallback (CRAG) when the user's documents do not answer. It is off unless configured, and callers send it
// the question alone: nothing from the user's documents ever leaves the machine through it.
package websearch

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Searcher finds web pages for a query. Implementations return at most n results, best first.
type Searcher interface {
	Search(ctx context.Context, query string, n int) ([]Result, error)
}

// Result is one web page found: its title, address and the provider's excerpt of it.
type Result struct {
	Title   string
	URL     string
	Snippet string
}

// Limits on what a provider may send back: the response body, the results kept and their fields.
const (
	maxBody    = 2 << 20
	maxResults = 10
	maxTitle   = 300
	maxSnippet = 1500
	// Timeout bounds one search when the caller's http.Client has none.
	Timeout = 15 * time.Second
)

// Providers New knows.
const (
	ProviderOff     = "off"
	ProviderSearXNG = "searxng"
	ProviderTavily  = "tavily"
)

// TavilyURL is the Tavily API used when no URL is configured for the tavily provider.
const TavilyURL = "https://api.tavily.com"

// New returns the Searcher of a provider: "searxng" (baseURL of the SearXNG instance, JSON format enabled)
// or "tavily" (a Tavily-compatible API; baseURL defaults to TavilyURL). Provider "off" or "" returns a nil
// Searcher and no error. hc nil means a client with Timeout.
func New(provider, baseURL, apiKey string, hc *http.Client) (Searcher, error) {
	if hc == nil {
		hc = &http.Client{Timeout: Timeout}
	}
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case "", ProviderOff:
		return nil, nil
	case ProviderSearXNG:
		u, err := parseBase(baseURL)
		if err != nil {
			return nil, fmt.Errorf("websearch: searxng: %w", err)
		}
		return &SearXNG{base: u, hc: hc}, nil
	case ProviderTavily:
		if strings.TrimSpace(baseURL) == "" {
			baseURL = TavilyURL
		}
		u, err := parseBase(baseURL)
		if err != nil {
			return nil, fmt.Errorf("websearch: tavily: %w", err)
		}
		if apiKey == "" && baseURL == TavilyURL {
			return nil, fmt.Errorf("websearch: tavily: an API key is needed (WEB_SEARCH_API_KEY)")
		}
		return &Tavily{base: u, key: apiKey, hc: hc}, nil
	default:
		return nil, fmt.Errorf("websearch: unknown provider %q: want off, searxng or tavily", provider)
	}
}

func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("url %q: want an http or https address", raw)
	}
	return u, nil
}

// endpoint joins the provider's base URL and a path.
func endpoint(base *url.URL, path string) *url.URL {
	u := *base
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = ""
	return &u
}
