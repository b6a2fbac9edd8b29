package llm_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func TestPingAndModels(t *testing.T) {
	s := llmtest.New(t, llmtest.WithModels("qwen3", "nomic-embed"))
	c := newClient(t, s, nil)
	if err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	ids, err := c.Models(context.Background())
	if err != nil || !slices.Equal(ids, []string{"qwen3", "nomic-embed"}) {
		t.Fatalf("models = %v, %v", ids, err)
	}
	if err := c.PingEmbed(context.Background()); err != nil {
		t.Fatal(err)
	}
	if u := c.Totals(); u.Calls != 0 || u.EmbedCalls != 0 {
		t.Errorf("health checks were metered: %+v", u)
	}
}

func TestPingWithoutModelsEndpoint(t *testing.T) {
	var chats atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		chats.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"p"},"finish_reason":"length"}]}`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m"}, nil)
	if err := c.Ping(context.Background()); err != nil || chats.Load() != 1 {
		t.Fatalf("ping = %v with %d chat calls, want a one-token chat", err, chats.Load())
	}
}

func TestPingDown(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Status: 401, ErrorMessage: "bad key"}, true
	})
	c := newClient(t, s, nil)
	if err := c.PingEmbed(context.Background()); err == nil {
		t.Fatal("PingEmbed succeeded against a 401")
	}
	srv := httptest.NewServer(nil)
	srv.Close()
	err := llm.New(llm.Config{BaseURL: srv.URL + "/v1", Model: "m"}, nil).Ping(context.Background())
	if err == nil {
		t.Fatal("Ping succeeded against a closed port")
	}
	if _, ok := errors.AsType[*llm.APIError](err); ok {
		t.Errorf("connection failure reported as an API error: %v", err)
	}
}
