package llm_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hopwise/hopwise/llm"
	"github.com/hopwise/hopwise/llm/llmtest"
)

func TestChat(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "Delhi to Munich is 5,921 km.", PromptTokens: 12, CompletionTokens: 9, FinishReason: "length"})
	c := newClient(t, s, nil)
	resp, err := c.Chat(context.Background(), llm.Request{Messages: []llm.Message{
		{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "assistant", Content: "a"}, {Role: "user", Content: "u2"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{Content: "Delhi to Munich is 5,921 km.", PromptTokens: 12, CompletionTokens: 9, FinishReason: "length"}
	if resp != want {
		t.Errorf("resp = %+v, want %+v", resp, want)
	}
	req := s.Requests()[0]
	if len(req.Messages) != 4 || req.Messages[2] != (llmtest.Message{Role: "assistant", Content: "a"}) || req.Stream {
		t.Errorf("request = %+v", req)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestChatRequestBody(t *testing.T) {
	tenth := float32(0.1)
	tests := []struct {
		name  string
		model string
		req   llm.Request
		want  map[string]any // fields and values; nil value means absent
	}{
		{"config temperature and max tokens", "test-model", llm.Request{MaxTokens: 100},
			map[string]any{"max_tokens": 100.0, "temperature": 0.3, "max_completion_tokens": nil, "response_format": nil}},
		{"request temperature, no max tokens: the client's cap", "test-model", llm.Request{Temperature: &tenth},
			map[string]any{"max_tokens": 2048.0, "temperature": 0.1}},
		{"reasoning model", "o3-mini", llm.Request{MaxTokens: 100},
			map[string]any{"max_completion_tokens": 100.0, "max_tokens": nil, "temperature": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.New(t)
			s.Enqueue(llmtest.Reply{Content: "ok"})
			c := newClient(t, s, func(c *llm.Config) { c.Model, c.Temperature = tt.model, 0.3 })
			tt.req.Messages = user("q")
			if _, err := c.Chat(context.Background(), tt.req); err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(s.Requests()[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			for k, want := range tt.want {
				got, ok := body[k]
				if want == nil && ok {
					t.Errorf("%s = %v, want absent", k, got)
				}
				if want != nil && got != want {
					if f, isF := got.(float64); !isF || float32(f) != float32(want.(float64)) {
						t.Errorf("%s = %v, want %v", k, got, want)
					}
				}
			}
			if body["model"] != tt.model {
				t.Errorf("model = %v", body["model"])
			}
		})
	}
}
