package rerank_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/hopwise/hopwise/rerank"
)

type received struct {
	path, auth string
	body       map[string]any
}

func server(t *testing.T, status int, answer string, got *received) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		got.path, got.auth = r.URL.Path, r.Header.Get("Authorization")
		_ = json.Unmarshal(raw, &got.body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, answer)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRerank(t *testing.T) {
	docs := []string{"about cats", "EU261 pays 600 EUR over 3,500 km", "about dogs"}
	tests := []struct {
		name    string
		base    string
		status  int
		answer  string
		want    []rerank.Score
		wantErr string
	}{
		{name: "cohere", base: "/v1", status: 200,
			answer: `{"results":[{"index":1,"relevance_score":0.9},{"index":2,"relevance_score":0.1},{"index":0,"relevance_score":0.3}]}`,
			want:   []rerank.Score{{Index: 1, Score: 0.9}, {Index: 0, Score: 0.3}, {Index: 2, Score: 0.1}}},
		{name: "tei", base: "/rerank", status: 200,
			answer: `[{"index":0,"score":-2.5},{"index":1,"score":4.0}]`,
			want:   []rerank.Score{{Index: 1, Score: 4}, {Index: 0, Score: -2.5}}},
		{name: "index out of range", base: "", status: 200, answer: `[{"index":7,"score":1}]`, wantErr: "document 7 of 3"},
		{name: "no score", base: "", status: 200, answer: `{"results":[{"index":0}]}`, wantErr: "without a score"},
		{name: "server error", base: "", status: 503, answer: `{"error":"loading"}`, wantErr: "status 503"},
		{name: "not json", base: "", status: 200, answer: `<html>`, wantErr: "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got received
			url := server(t, tt.status, tt.answer, &got)
			c := rerank.New(url+tt.base, "bge-reranker", "secret")
			scores, err := c.Rerank(context.Background(), "compensation for long flights", docs)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(scores, tt.want) {
				t.Errorf("scores = %+v, want %+v", scores, tt.want)
			}
			if !strings.HasSuffix(got.path, "/rerank") || strings.HasSuffix(got.path, "/rerank/rerank") {
				t.Errorf("path = %q", got.path)
			}
			if got.auth != "Bearer secret" || got.body["model"] != "bge-reranker" || got.body["query"] != "compensation for long flights" {
				t.Errorf("request = %+v auth %q", got.body, got.auth)
			}
			if d, ok := got.body["documents"].([]any); !ok || len(d) != 3 {
				t.Errorf("documents = %v", got.body["documents"])
			}
		})
	}
}

func TestRerankNoDocuments(t *testing.T) {
	var got received
	c := rerank.New(server(t, 200, `[]`, &got), "", "")
	scores, err := c.Rerank(context.Background(), "q", nil)
	if err != nil || scores != nil || got.path != "" {
		t.Fatalf("scores %v err %v path %q: want no call", scores, err, got.path)
	}
}
