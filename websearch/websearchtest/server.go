// Package websearchtest is a fake web search provider for tests: one HTTP server that answers both the
// SearXNG JSON API and the Tavily API from a script, and records every request it receives so a test can
// assert what left the machine.
package websearchtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/hopwise/hopwise/websearch"
)

// Request is one search as the server received it.
type Request struct {
	Provider string // "searxng" or "tavily"
	Query    string
	Body     string // the raw request body (Tavily) or URL query (SearXNG)
	APIKey   string // the key sent in the body or the Authorization header
}

// Server is a scripted search provider; safe for concurrent use.
type Server struct {
	srv     *httptest.Server
	answer  func(query string) []websearch.Result
	mu      sync.Mutex
	records []Request
}

// New starts a server closed when the test ends; answer gives the results of each query (nil: none).
func New(t testing.TB, answer func(query string) []websearch.Result) *Server {
	t.Helper()
	if answer == nil {
		answer = func(string) []websearch.Result { return nil }
	}
	s := &Server{answer: answer}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /search", s.serveSearXNG)
	mux.HandleFunc("POST /search", s.serveTavily)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL to configure as the provider's address.
func (s *Server) URL() string { return s.srv.URL }

// Requests returns every search received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.records...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, r)
}

type wireResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

func (s *Server) results(query string) []wireResult {
	var out []wireResult
	for _, r := range s.answer(query) {
		out = append(out, wireResult{Title: r.Title, URL: r.URL, Content: r.Snippet})
	}
	return out
}

func (s *Server) serveSearXNG(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.record(Request{Provider: "searxng", Query: q.Get("q"), Body: r.URL.RawQuery})
	if q.Get("format") != "json" {
		http.Error(w, "format not allowed", http.StatusForbidden)
		return
	}
	writeJSON(w, map[string]any{"query": q.Get("q"), "results": s.results(q.Get("q"))})
}

func (s *Server) serveTavily(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var body struct {
		APIKey     string `json:"api_key"`
		Query      string `json:"query"`
		MaxResults int    `json:"max_results"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	key := body.APIKey
	if h := r.Header.Get("Authorization"); key == "" && len(h) > 7 {
		key = h[7:]
	}
	s.record(Request{Provider: "tavily", Query: body.Query, Body: string(raw), APIKey: key})
	res := s.results(body.Query)
	if body.MaxResults > 0 && len(res) > body.MaxResults {
		res = res[:body.MaxResults]
	}
	writeJSON(w, map[string]any{"query": body.Query, "results": res})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
