// Package rerank scores passages against a query with a cross-encoder served behind a Cohere- or
// TEI-style /rerank endpoint (Cohere, Jina, Infinity, text-embeddings-inference, llama.cpp server).
// The agent uses it after fusing search results, when one is configured.
package rerank

import (
	"context"
	"net/http"
	"strings"
	"time"
)

// Reranker orders documents by relevance to query. It returns one Score per document it kept, best first;
// Index points into docs.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]Score, error)
}

// Score is a document's relevance to the query; higher is better. Scales differ between servers.
type Score struct {
	Index int
	Score float64
}

// Limits: one call's deadline and the response size read at most.
const (
	Timeout = 30 * time.Second
	maxBody = 4 << 20
)

// Client calls one /rerank endpoint.
type Client struct {
	url   string
	model string
	key   string
	hc    *http.Client
}

var _ Reranker = (*Client)(nil)

// New returns a Client for the endpoint at url; "/rerank" is appended when url does not end with it.
// model may be empty for servers that serve one model; key, when set, is sent as a bearer token.
func New(url, model, key string) *Client {
	url = strings.TrimRight(strings.TrimSpace(url), "/")
	if !strings.HasSuffix(url, "/rerank") {
		url += "/rerank"
	}
	return &Client{url: url, model: model, key: key, hc: &http.Client{Timeout: Timeout}}
}
