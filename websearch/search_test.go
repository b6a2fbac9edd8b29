package websearch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/websearch"
	"github.com/hopwise/hopwise/websearch/websearchtest"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name, provider, url, key string
		wantNil, wantErr         bool
	}{
		{name: "off", provider: "off", wantNil: true},
		{name: "empty is off", provider: "", wantNil: true},
		{name: "searxng", provider: "searxng", url: "http://127.0.0.1:8888"},
		{name: "searxng needs a url", provider: "searxng", wantErr: true},
		{name: "searxng refuses other schemes", provider: "searxng", url: "file:///etc/passwd", wantErr: true},
		{name: "tavily default needs a key", provider: "tavily", wantErr: true},
		{name: "tavily with key", provider: "tavily", key: "tvly-1"},
		{name: "tavily-compatible without key", provider: "tavily", url: "http://127.0.0.1:9000"},
		{name: "unknown", provider: "bing", url: "http://x", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := websearch.New(tt.provider, tt.url, tt.key, nil)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if (s == nil) != tt.wantNil {
				t.Fatalf("searcher = %v, want nil %v", s, tt.wantNil)
			}
		})
	}
}

func TestSearchSendsOnlyTheQuery(t *testing.T) {
	for _, provider := range []string{"searxng", "tavily"} {
		t.Run(provider, func(t *testing.T) {
			fake := websearchtest.New(t, func(q string) []websearch.Result {
				return []websearch.Result{
					{Title: "Munich  population", URL: "https://example.org/munich", Snippet: "Munich has\n1.5 million inhabitants."},
					{Title: "bad link", URL: "javascript:alert(1)", Snippet: "dropped"},
					{Title: "second", URL: "http://example.net/b", Snippet: "two"},
					{Title: "third", URL: "http://example.net/c", Snippet: "three"},
				}
			})
			s, err := websearch.New(provider, fake.URL(), "key-123", nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Search(context.Background(), "What is the population of Munich?", 2)
			if err != nil {
				t.Fatal(err)
			}
			want := []websearch.Result{
				{Title: "Munich population", URL: "https://example.org/munich", Snippet: "Munich has 1.5 million inhabitants."},
				{Title: "second", URL: "http://example.net/b", Snippet: "two"},
			}
			if len(got) != len(want) {
				t.Fatalf("got %d results %+v, want %+v", len(got), got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("result %d = %+v, want %+v", i, got[i], want[i])
				}
			}
			reqs := fake.Requests()
			if len(reqs) != 1 || reqs[0].Query != "What is the population of Munich?" || reqs[0].Provider != provider {
				t.Fatalf("requests = %+v", reqs)
			}
			if provider == "tavily" && reqs[0].APIKey != "key-123" {
				t.Errorf("api key = %q", reqs[0].APIKey)
			}
		})
	}
}

func TestSearchFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{name: "status", handler: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "json format disabled", http.StatusForbidden)
		}, want: "403"},
		{name: "html", handler: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html></html>"))
		}, want: "not JSON"},
		{name: "too large", handler: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"results":[{"title":"` + strings.Repeat("a", 3<<20) + `"}]}`))
		}, want: "larger than"},
		{name: "malformed", handler: func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"results":`))
		}, want: "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			s, err := websearch.New("searxng", srv.URL, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Search(context.Background(), "q", 3)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestSearchTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	s, err := websearch.New("tavily", srv.URL, "", &http.Client{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := s.Search(context.Background(), "q", 3); err == nil {
		t.Fatal("want a timeout error")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("search took %s despite the timeout", d)
	}
}
