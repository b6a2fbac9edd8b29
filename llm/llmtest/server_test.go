package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopwise/hopwise/llm/llmtest"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("post %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type chatAnswer struct {
	Choices []struct {
		Message      struct{ Role, Content string } `json:"message"`
		FinishReason string                         `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error *struct{ Message, Type string } `json:"error"`
}

func decode[T any](t *testing.T, r io.Reader) T {
	t.Helper()
	var v T
	if err := json.NewDecoder(r).Decode(&v); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return v
}

const chatBody = `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hello there"}]}`

func TestQueueMatchersAndDefault(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "first"}, llmtest.Reply{Content: "second"})
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Content: "matched"}, r.Contains("magic")
	})
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Content: "never"}, r.Contains("magic")
	})
	tests := []struct {
		name, body, want string
		status           int
	}{
		{"queue first", chatBody, "first", 200},
		{"matcher before queue", `{"messages":[{"role":"user","content":"a magic word"}]}`, "matched", 200},
		{"queue second", chatBody, "second", 200},
		{"default when empty", chatBody, "", 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, s.URL()+"/chat/completions", tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d", resp.StatusCode, tt.status)
			}
			a := decode[chatAnswer](t, resp.Body)
			if tt.status != 200 {
				if a.Error == nil || !strings.Contains(a.Error.Message, "no scripted reply") {
					t.Fatalf("error body = %+v", a.Error)
				}
				return
			}
			if got := a.Choices[0].Message.Content; got != tt.want {
				t.Fatalf("content = %q, want %q", got, tt.want)
			}
		})
	}
	if got := s.ChatCalls(); got != 4 {
		t.Errorf("ChatCalls = %d, want 4", got)
	}
	req := s.Requests()[0]
	if req.System() != "be brief" || req.LastUser() != "hello there" || req.Model != "m" || req.At.IsZero() {
		t.Errorf("recorded request = %+v", req)
	}
}

func TestUsageEstimatedOrScripted(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "12345678"}, llmtest.Reply{Content: "x", PromptTokens: 7, CompletionTokens: 3})
	a := decode[chatAnswer](t, post(t, s.URL()+"/chat/completions", chatBody).Body)
	// prompt "be brief"+"hello there" is 19 bytes.
	if a.Usage.PromptTokens != 4 || a.Usage.CompletionTokens != 2 {
		t.Errorf("estimated usage = %+v, want 4 and 2", *a.Usage)
	}
	a = decode[chatAnswer](t, post(t, s.URL()+"/chat/completions", chatBody).Body)
	if a.Usage.PromptTokens != 7 || a.Usage.CompletionTokens != 3 {
		t.Errorf("scripted usage = %+v, want 7 and 3", *a.Usage)
	}
}

func TestErrorReplies(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(
		llmtest.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down", RetryAfter: "2"},
		llmtest.Reply{Status: 502, RawBody: "<html>bad gateway</html>"},
	)
	resp := post(t, s.URL()+"/chat/completions", chatBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	a := decode[chatAnswer](t, resp.Body)
	if a.Error.Message != "slow down" || a.Error.Type != "rate_limit_error" {
		t.Errorf("error = %+v", a.Error)
	}
	resp = post(t, s.URL()+"/chat/completions", chatBody)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 502 || string(body) != "<html>bad gateway</html>" {
		t.Errorf("raw reply: %d %q", resp.StatusCode, body)
	}
}

// readEvents returns the data payloads of a server-sent-event stream.
func readEvents(t *testing.T, r io.Reader) []string {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		events = append(events, data)
	}
	return events
}

type streamChunk struct {
	Choices []struct {
		Delta        struct{ Content string } `json:"delta"`
		FinishReason *string                  `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func TestStreamSSE(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Content: "Hello, wörld!", CompletionTokens: 5})
	body := `{"messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`
	resp := post(t, s.URL()+"/chat/completions", body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	events := readEvents(t, resp.Body)
	if events[len(events)-1] != "[DONE]" {
		t.Fatalf("last event = %q, want [DONE]", events[len(events)-1])
	}
	var text strings.Builder
	var finish string
	var usageChunks int
	for _, e := range events[:len(events)-1] {
		var c streamChunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %q: %v", e, err)
		}
		for _, ch := range c.Choices {
			text.WriteString(ch.Delta.Content)
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			usageChunks++
			if len(c.Choices) != 0 || c.Usage.CompletionTokens != 5 {
				t.Errorf("usage chunk = %s", e)
			}
		}
	}
	if text.String() != "Hello, wörld!" || finish != "stop" || usageChunks != 1 {
		t.Errorf("text %q, finish %q, usage chunks %d", text.String(), finish, usageChunks)
	}
	// role chunk + 4 content chunks of ~4 characters + finish chunk + usage chunk + [DONE]
	if len(events) != 8 {
		t.Errorf("got %d events, want 8: %q", len(events), events)
	}
	if !s.Requests()[0].Stream || !s.Requests()[0].IncludeUsage {
		t.Errorf("request not recorded as streaming with usage")
	}
}

func TestStreamStallHangsUntilClientLeaves(t *testing.T) {
	s := llmtest.New(t)
	s.Enqueue(llmtest.Reply{Chunks: []string{"a", "b", "c"}, StallAfter: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/chat/completions",
		strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var got []string
	for len(got) < 3 { // role chunk, "a", "b"
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if strings.HasPrefix(line, "data: ") {
			got = append(got, line)
		}
	}
	next := make(chan error, 1)
	go func() {
		for {
			line, err := br.ReadString('\n')
			if err != nil || strings.TrimSpace(line) != "" {
				next <- err
				return
			}
		}
	}()
	select {
	case err := <-next:
		t.Fatalf("stream went on after the stall point (err %v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	select {
	case <-next:
	case <-time.After(2 * time.Second):
		t.Fatal("read did not end after the client went away")
	}
}

func TestEmbeddings(t *testing.T) {
	s := llmtest.New(t, llmtest.WithEmbedDim(32))
	resp := post(t, s.URL()+"/embeddings", `{"model":"e","input":["Munich to Delhi distance","distance from Delhi to Munich","denied boarding compensation","Munich to Delhi distance"]}`)
	out := decode[struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}](t, resp.Body)
	if len(out.Data) != 4 {
		t.Fatalf("got %d vectors", len(out.Data))
	}
	v := make([][]float32, 4)
	for i, d := range out.Data {
		if d.Index != i || len(d.Embedding) != 32 {
			t.Fatalf("vector %d: index %d, dim %d", i, d.Index, len(d.Embedding))
		}
		v[i] = d.Embedding
	}
	if cos(v[0], v[3]) < 0.9999 {
		t.Errorf("identical texts: cosine %v", cos(v[0], v[3]))
	}
	if near, far := cos(v[0], v[1]), cos(v[0], v[2]); near <= far || near < 0.5 {
		t.Errorf("shared words cosine %v, unrelated %v", near, far)
	}
	if s.EmbedCalls() != 1 || s.ChatCalls() != 0 || !s.Requests()[0].IsEmbed() {
		t.Errorf("calls: embed %d chat %d", s.EmbedCalls(), s.ChatCalls())
	}
	if got := llmtest.Vector("", 8); got[0] != 1 {
		t.Errorf("empty text vector = %v", got)
	}
}

func TestEmbeddingsScriptedError(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Status: 503, ErrorMessage: "warming up"}, r.IsEmbed()
	})
	if resp := post(t, s.URL()+"/embeddings", `{"input":"x"}`); resp.StatusCode != 503 {
		t.Errorf("status = %d, want 503", resp.StatusCode)
	}
}

func TestModels(t *testing.T) {
	s := llmtest.New(t, llmtest.WithModels("a", "b"))
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := decode[struct{ Data []struct{ ID string } }](t, resp.Body)
	if len(out.Data) != 2 || out.Data[0].ID != "a" || out.Data[1].ID != "b" {
		t.Errorf("models = %+v", out.Data)
	}
}

func TestMaxInFlight(t *testing.T) {
	s := llmtest.New(t)
	s.Handle(func(llmtest.Request) (llmtest.Reply, bool) {
		return llmtest.Reply{Content: "ok", Delay: 50 * time.Millisecond}, true
	})
	done := make(chan struct{})
	for range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			resp, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(chatBody))
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range 3 {
		<-done
	}
	if got := s.MaxInFlight(); got != 3 {
		t.Errorf("MaxInFlight = %d, want 3", got)
	}
}

func TestBadRequestBody(t *testing.T) {
	s := llmtest.New(t)
	if resp := post(t, s.URL()+"/chat/completions", `{not json`); resp.StatusCode != 400 {
		t.Errorf("status = %d, want 400", resp.StatusCode)
	}
}

func cos(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}
